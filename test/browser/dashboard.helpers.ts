import { createHash } from 'node:crypto';
import { Browser, BrowserContext, chromium, Page } from 'playwright-core';
import { chromiumPath, screenshot } from '../support/chromium';
import type { TestApp } from '../support/app';
import type { CreatedPartner } from '../support/factories';

const PUBLIC_BASE = 'http://localhost:3999';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** A sign-in link made through the API, pointed at the test server (the service hands out PUBLIC_BASE_URL links). */
export async function dashboardLink(t: TestApp, p: CreatedPartner): Promise<{ url: string; token: string; expiresAt: string }> {
  const res = await p.http.post('/api/partners/me/dashboard-link');
  expect(res.status).toBe(201);
  const url = (res.body.data.url as string).replace(PUBLIC_BASE, t.baseUrl);
  return { url, token: new URL(url).searchParams.get('token')!, expiresAt: res.body.data.expires_at as string };
}

export const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

/** A new browser context signed in to the dashboard of this partner's key (partner and mode). */
export async function signedIn(browser: Browser, t: TestApp, p: CreatedPartner, width = 1200): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  const { url } = await dashboardLink(t, p);
  await page.goto(url);
  await page.getByRole('button', { name: 'Open the dashboard' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  return { context, page };
}

/** The docs' pictures of the dashboard (UPDATE_SCREENSHOTS=1 refreshes them). */
export const shot = (page: Page, name: string) => screenshot(page, `dashboard-${name}`);

/** The visible text of the page's main region. */
export const mainText = (page: Page) => page.locator('main').innerText();
