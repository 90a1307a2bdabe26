import { createHmac } from 'node:crypto';
import { Browser, Page } from 'playwright-core';
import { startApp, TestApp } from '../support/app';
import { createPartner, CreatedPartner } from '../support/factories';
import { waitFor, WebhookReceiver } from '../support/webhook-receiver';
import { launchBrowser, mainText, shot, signedIn } from './dashboard.helpers';

jest.setTimeout(150_000);

let t: TestApp;
let browser: Browser;
let receiver: WebhookReceiver;
let p: CreatedPartner;

beforeAll(async () => {
  [t, browser, receiver] = await Promise.all([startApp(), launchBrowser(), new WebhookReceiver().start()]);
  p = await createPartner(t, { plan: 'growth', name: 'Acme Learning' });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await receiver?.stop();
});

/** Reloads until the delivery page shows this status (deliveries are sent in the background). */
async function untilStatus(page: Page, status: string): Promise<void> {
  await waitFor(
    async () => {
      await page.reload();
      return (await page.locator('#delivery-status').innerText()).trim() === status;
    },
    20_000,
    `delivery ${status}`,
  );
}

const standardSignature = (secret: string, id: string, ts: string, body: Buffer) =>
  `v1,${createHmac('sha256', secret).update(`${id}.${ts}.${body.toString()}`).digest('base64')}`;

describe('partner dashboard: webhooks in a browser', () => {
  it('finds why a delivery failed, fixes it with Redeliver, and sees a rotated secret sign next to the old one', async () => {
    const { context, page } = await signedIn(browser, t, p);
    await shot(page, 'overview-empty');

    // An endpoint whose receiver is down: four attempts (the test retry schedule), all answering 500.
    receiver.script('/down', ...Array.from({ length: 4 }, () => ({ status: 500, body: '{"error":"database unavailable"}' })));
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('URL').fill(receiver.url('/down'));
    await page.getByLabel('course.enrolled').check();
    await page.getByLabel(/^Signing secret/).fill('first-secret-0123456789');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await expect(page.locator('#new-secret').innerText()).resolves.toBe('first-secret-0123456789');
    await shot(page, 'webhooks');
    await page.getByRole('link', { name: 'Open the endpoint' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhook endpoint' }).waitFor();
    await shot(page, 'webhook-endpoint');

    // Keyboard only: focus the button and press Enter.
    await page.getByRole('button', { name: 'Send a test event' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Delivery log' }).waitFor();
    await page.getByText('A test event is on its way').waitFor();
    await page.getByRole('link', { name: /^whd_/ }).first().click();
    await untilStatus(page, 'failed');
    const failed = page.locator('section.attempt').first();
    await expect(failed.locator('.status-code').innerText()).resolves.toBe('500');
    await expect(failed.locator('pre.response').innerText()).resolves.toContain('database unavailable');
    await expect(page.locator('section.attempt').count()).resolves.toBe(4);
    await expect(page.locator('pre.payload').innerText()).resolves.toContain('"event": "webhook.test"');
    await shot(page, 'delivery-failed');

    // The receiver is fixed (its script is used up: it answers 200 now); Redeliver sends the same delivery again.
    await page.getByRole('button', { name: 'Redeliver' }).click();
    await page.getByText('Queued for redelivery').waitFor();
    await untilStatus(page, 'delivered');
    await expect(page.locator('section.attempt').count()).resolves.toBe(5);
    await expect(page.locator('section.attempt').last().locator('.status-code').innerText()).resolves.toBe('200');
    await shot(page, 'delivery');
    const ids = receiver.at('/down').map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(1);

    // The delivery log filters by status, event type and endpoint.
    await page.getByRole('link', { name: 'Delivery log' }).click();
    await page.getByLabel('Status').selectOption('delivered');
    await page.getByLabel('Event type').selectOption('webhook.test');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/status=delivered/);
    await expect(mainText(page)).resolves.toContain('1 delivery');
    await shot(page, 'deliveries');
    await page.getByLabel('Status').selectOption('failed');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/status=failed/);
    await expect(mainText(page)).resolves.toContain('0 deliveries');

    // Rotate the secret with an overlap: the next delivery carries two signatures, the new one first.
    await page.goto(`${t.baseUrl}/dashboard/webhooks`);
    await page.getByRole('link', { name: receiver.url('/down') }).click();
    await page.getByLabel(/^New secret/).fill('second-secret-0123456789');
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await expect(page.locator('#new-secret').innerText()).resolves.toBe('second-secret-0123456789');
    await page.getByText('The previous secret also signs until').waitFor();
    await page.getByRole('link', { name: 'Back to the endpoint' }).click();
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.getByRole('link', { name: /^whd_/ }).first().click();
    await untilStatus(page, 'delivered');
    await page.locator('section.attempt summary').first().click();
    const headers = await page.locator('pre.headers').first().innerText();
    const signature = /webhook-signature: (.*)/.exec(headers)![1];
    expect(signature.split(' ')).toHaveLength(2);
    expect(headers).toContain('x-svc-signature-previous: sha256=');
    await shot(page, 'delivery-rotated');

    const last = receiver.at('/down').at(-1)!;
    const [id, ts] = [String(last.headers['webhook-id']), String(last.headers['webhook-timestamp'])];
    expect(last.headers['webhook-signature']).toBe(
      `${standardSignature('second-secret-0123456789', id, ts, last.body)} ${standardSignature('first-secret-0123456789', id, ts, last.body)}`,
    );
    await context.close();
  });

  it('reads at 360 px wide, and disables, enables and recovers an endpoint', async () => {
    const hook = (
      await p.http.post('/api/connect/webhooks', { url: receiver.url('/narrow'), events: ['course.completed'], secret: 'narrow-secret-0123456789' })
    ).body.data.id as string;
    const { context, page } = await signedIn(browser, t, p, 360);
    const fits = () => page.evaluate('document.documentElement.scrollWidth <= window.innerWidth');
    for (const path of [
      '/dashboard',
      '/dashboard/webhooks',
      `/dashboard/webhooks/${hook}`,
      '/dashboard/deliveries',
      '/dashboard/requests',
      '/dashboard/keys',
      '/dashboard/jobs',
    ]) {
      await page.goto(t.baseUrl + path);
      // Wide tables scroll inside their own region; the page itself never scrolls sideways.
      await expect(fits()).resolves.toBe(true);
    }
    await page.goto(`${t.baseUrl}/dashboard/webhooks/${hook}`);
    await shot(page, 'webhook-endpoint-360');
    await page.getByRole('button', { name: 'Disable endpoint' }).click();
    await page.getByText('The endpoint is disabled').waitFor();
    // Disabled: a test event is refused with the API's reason.
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await expect(mainText(page)).resolves.toContain('webhook_disabled');
    await page.goto(`${t.baseUrl}/dashboard/webhooks/${hook}`);
    await page.getByRole('button', { name: 'Enable endpoint' }).click();
    await page.getByText('The endpoint is enabled').waitFor();
    await page.getByRole('button', { name: 'Recover' }).click();
    await expect(mainText(page)).resolves.toContain('0 deliveries are queued again');

    // Bulk jobs: the list and one job's rows.
    const job = (await p.http.post('/api/enroll/bulk', { enrollments: [{ user_id: 2_000_000_000, course_id: 1 }] })).body.data.job.id as string;
    await page.setViewportSize({ width: 1200, height: 900 });
    await waitFor(async () => (await p.http.get(`/api/jobs/${job}`)).body.data.status === 'completed', 20_000, 'the job');
    await page.goto(`${t.baseUrl}/dashboard/jobs`);
    await shot(page, 'jobs');
    await page.getByRole('link', { name: job }).click();
    await expect(mainText(page)).resolves.toContain('user_not_found');
    await shot(page, 'job');
    await context.close();
  });
});
