import { chromiumPath } from '../support/chromium';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Browser, chromium } from 'playwright-core';
import { startApp, TestApp } from '../support/app';
import { createAdmin } from '../support/factories';

jest.setTimeout(120_000);

/**
 * Finding 7 in a real browser: the operator is signed in to the dashboard (HTTP Basic), then opens a page on
 * another site that submits a form to the dashboard. The browser sends the credentials; the board must refuse.
 * The dashboard's own writes must keep working.
 */
let t: TestApp;
let browser: Browser;
let evil: Server;
let evilOrigin: string;
let adminKey: string;
beforeAll(async () => {
  t = await startApp({ RUN_WORKER: 'false' });
  adminKey = (await createAdmin(t)).key;
  // Served as http://localhost:<port> while the service is http://127.0.0.1:<port>: another site.
  evil = createServer((_req, res) => {
    res.setHeader('Content-Type', 'text/html');
    res.end(`<form id="f" method="POST" action="${t.baseUrl}/admin/queues/api/queues/webhook-deliveries/add" enctype="text/plain">
      <input name='{"name":"csrf-browser","data":{},"x":"' value='"}'></form><script>document.getElementById('f').submit()</script>`);
  });
  await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
  evilOrigin = `http://localhost:${(evil.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
});
afterAll(async () => {
  await browser?.close();
  evil?.close();
  await t?.close();
});

describe('Bull Board in Chromium', () => {
  it("runs the dashboard's own writes and refuses a form another site submits with the operator's credentials", async () => {
    const context = await browser.newContext({ httpCredentials: { username: 'operator', password: adminKey } });
    const page = await context.newPage();
    await page.goto(`${t.baseUrl}/admin/queues`);
    await page.getByText('webhook-deliveries').first().waitFor();
    const own = await page.evaluate<number>(`fetch('/admin/queues/api/queues/webhook-deliveries/retry/failed', { method: 'PUT' }).then((r) => r.status)`);
    expect(own).toBe(200);

    const attacked = context.waitForEvent('response', (r) => r.url().includes('/admin/queues/api/queues/webhook-deliveries/add'));
    const other = await context.newPage();
    await other.goto(evilOrigin);
    const response = await attacked;
    expect(response.status()).toBe(403);
    const jobs = await page.evaluate<string>(`fetch('/admin/queues/api/queues?activeQueue=webhook-deliveries&status=latest').then((r) => r.text())`);
    expect(jobs).not.toContain('csrf-browser');
    await context.close();
  });
});
