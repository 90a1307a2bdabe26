import { chromiumPath, screenshot, servePublicBaseFrom } from '../support/chromium';
import { Browser, chromium, Page } from 'playwright-core';
import { startApp, TestApp } from '../support/app';
import { createPartner, CreatedPartner } from '../support/factories';
import { createUser, createWebinar, webinarEvents } from '../integration/webinar.helpers';

jest.setTimeout(120_000);

const PUBLIC_BASE = 'http://localhost:3999';

let t: TestApp;
let p: CreatedPartner;
let browser: Browser;

beforeAll(async () => {
  t = await startApp();
  p = await createPartner(t, { plan: 'enterprise' });
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/**
 * A page in its own browser context that reaches the test server under PUBLIC_BASE_URL, so the URLs the API
 * hands out are opened exactly as given and every request is same-origin, as in production.
 */
async function openPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  await servePublicBaseFrom(context, PUBLIC_BASE, t.baseUrl);
  return context.newPage();
}

// The README's pictures (UPDATE_SCREENSHOTS=1 refreshes them).
const shot = (page: Page, name: string) => screenshot(page, name);
const statusOf = (page: Page) => page.locator('#status');

describe('webinar pages in a real browser', () => {
  it('host goes live, attendees see it and are counted, host ends and every page shows the end', async () => {
    const w = await createWebinar(p, { title: 'Live Q&A: building accessible forms', max_attendees: 50 });
    const register = async (name: string) => {
      const user = await createUser(p, name);
      return (await p.http.post(`/api/webinars/${w.webinar_id}/register`, { user_id: user.id })).body.data.join_url as string;
    };
    const [earlyLink, lateLink] = [await register('Ada Lovelace'), await register('Grace Hopper')];

    const host = await openPage();
    await host.goto(w.host_join_url);
    await expect(statusOf(host).getAttribute('data-status')).resolves.toBe('scheduled');
    await expect(host.getByRole('button', { name: 'End webinar' }).isDisabled()).resolves.toBe(true);
    await shot(host, 'webinar-host-scheduled');

    // Opened before the start: shows the countdown, then turns live without a reload and joins from the page.
    const early = await openPage();
    await early.goto(earlyLink);
    await early.locator('#countdown').filter({ hasText: 'Starts in' }).waitFor();
    await shot(early, 'webinar-attendee-scheduled');

    await host.getByRole('button', { name: 'Go live' }).click();
    await host.locator('#status[data-status="live"]').waitFor();
    await expect(host.getByRole('button', { name: 'Go live' }).isDisabled()).resolves.toBe(true);
    await early.locator('#status[data-status="live"]').waitFor();

    const late = await openPage();
    await late.goto(lateLink);
    await expect(statusOf(late).textContent()).resolves.toBe('Live now');
    await late.getByText('Joining as Grace Hopper').waitFor();

    await host.locator('#joined-count', { hasText: '2' }).waitFor();
    await host.locator('#attendee-list li', { hasText: 'Grace Hopper (joined)' }).waitFor();

    const embed = await openPage();
    await embed.goto(w.embed_url);
    await embed.locator('#status[data-status="live"]').waitFor();

    await host.getByRole('button', { name: 'End webinar' }).click();
    for (const page of [host, early, late, embed]) {
      await page.locator('#status[data-status="ended"]').waitFor();
      await page.getByText('This webinar has ended. Thank you for attending.').waitFor();
    }
    await shot(host, 'webinar-host-ended');
    await shot(late, 'webinar-attendee-ended');

    expect(await webinarEvents(t, w.webinar_id, 'webinar.started')).toHaveLength(1);
    const joined = await webinarEvents(t, w.webinar_id, 'webinar.joined');
    expect(joined.map((e) => e.payload.name).sort()).toEqual(['Ada Lovelace', 'Grace Hopper']);
    const [ended] = await webinarEvents(t, w.webinar_id, 'webinar.ended');
    expect(ended.payload).toMatchObject({ webinar_id: w.webinar_id, attendance_count: 2 });
  });

  it('Swagger UI renders every tag, and Try it out on GET /api/courses with a test key answers 200', async () => {
    const doc = (await t.http.get('/docs/openapi.json')).body;
    const tags = new Set<string>();
    for (const item of Object.values<Record<string, { tags?: string[] }>>(doc.paths))
      for (const op of Object.values(item)) op.tags?.forEach((tag) => tags.add(tag));
    expect(tags.size).toBeGreaterThan(3);

    const page = await openPage();
    await page.goto(`${PUBLIC_BASE}/docs`);
    await page.locator('.opblock-tag').first().waitFor();
    for (const tag of tags) await expect(page.locator(`.opblock-tag[data-tag="${tag}"]`).isVisible()).resolves.toBe(true);
    await shot(page, 'swagger-ui');

    await page.locator('button.authorize').first().click();
    // The dialog lists the API key and the webinar (WHIP/WHEP) bearer token; the key goes in the first.
    const apiKeyForm = page.locator('.modal-ux .auth-container', { has: page.locator('#api_key_value') });
    await apiKeyForm.locator('#api_key_value').fill(p.key);
    await apiKeyForm.locator('button.authorize').click();
    await page.locator('.modal-ux button.btn-done').first().click();

    const operation = page.locator('#operations-Courses-Courses_list');
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.getByRole('button', { name: 'Execute' }).click();
    const status = operation.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor();
    await expect(status.textContent()).resolves.toMatch(/^\s*200/);
    await shot(page, 'swagger-try-it-out');
  });
});
