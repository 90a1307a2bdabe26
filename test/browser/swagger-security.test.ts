import { chromiumPath } from '../support/chromium';
import { Browser, chromium } from 'playwright-core';
import { startApp, TestApp } from '../support/app';
import { createPartner, CreatedPartner } from '../support/factories';

jest.setTimeout(120_000);

/** Finding 10: Swagger UI kept the key in localStorage (persistAuthorization), where any script on the origin reads it. */
let t: TestApp;
let p: CreatedPartner;
let browser: Browser;
beforeAll(async () => {
  t = await startApp();
  p = await createPartner(t, { plan: 'starter' });
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('Swagger UI in Chromium', () => {
  it.each(['/docs', '/docs/'])("renders the operations and links the partner's guide at %s (never a blank page)", async (path) => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${t.baseUrl}${path}`);
    await page.locator('.opblock').first().waitFor();
    expect(await page.locator('.opblock').count()).toBeGreaterThan(40);
    expect(await page.locator('a[href="/docs/guide"]').count()).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('keeps the key out of localStorage and sessionStorage after Authorize, and forgets it on reload', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${t.baseUrl}/docs`);
    await page.locator('button.authorize').first().click();
    // The dialog lists the API key and the webinar (WHIP/WHEP) bearer token; the key goes in the first.
    const apiKeyForm = page.locator('.modal-ux .auth-container', { has: page.locator('#api_key_value') });
    await apiKeyForm.locator('#api_key_value').fill(p.key);
    await apiKeyForm.locator('button.authorize').click();
    await page.locator('.modal-ux button.btn-done').first().click();
    // Authorized in this page: the lock shows it.
    await page.locator('button.authorize.locked').first().waitFor();

    const stored = await page.evaluate<string>('JSON.stringify({ ...localStorage, ...sessionStorage })');
    expect(stored).not.toContain(p.key);
    expect(stored).not.toContain(p.key.slice(9));

    await page.reload();
    await page.locator('button.authorize').first().waitFor();
    await expect(page.locator('button.authorize.locked').count()).resolves.toBe(0);
    await context.close();
  });
});
