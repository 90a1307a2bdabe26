import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { Browser } from 'playwright-core';
import { RequestRecorder } from '../../src/request-log/request-recorder';
import { startApp, TestApp } from '../support/app';
import { createAdmin, createKey, createPartner, CreatedPartner } from '../support/factories';
import { dashboardLink, launchBrowser, mainText, shot, signedIn, tokenHash } from './dashboard.helpers';

jest.setTimeout(120_000);

let t: TestApp;
let browser: Browser;
let a: CreatedPartner;
let aLive: CreatedPartner;
let b: CreatedPartner;

beforeAll(async () => {
  [t, browser] = await Promise.all([startApp(), launchBrowser()]);
  a = await createPartner(t, { plan: 'enterprise', name: 'Acme Learning' });
  aLive = await createKey(t, a.partnerId, 'live');
  b = await createPartner(t, { plan: 'enterprise', name: 'Beta Academy' });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const flushRequests = () => t.app.get(RequestRecorder).flush();

describe('partner dashboard: sign-in', () => {
  it('a link signs in once, sets a 12-hour HttpOnly SameSite=Lax cookie, and fails a second time and after 10 minutes', async () => {
    const link = await dashboardLink(t, a);
    const ttl = Date.parse(link.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(9 * 60_000);
    expect(ttl).toBeLessThanOrEqual(10 * 60_000);

    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(link.url);
    await shot(page, 'sign-in');
    await page.getByRole('button', { name: 'Open the dashboard' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await expect(page.locator('header').innerText()).resolves.toContain('Acme Learning');
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: 'partner_dashboard', httpOnly: true, sameSite: 'Lax', secure: true, path: '/dashboard' });
    expect(cookie.expires * 1000 - Date.now()).toBeGreaterThan(11.9 * 3_600_000);
    expect(cookie.expires * 1000 - Date.now()).toBeLessThanOrEqual(12 * 3_600_000);

    // Used: a second visit (another browser) is refused.
    const other = await browser.newContext();
    const second = await other.newPage();
    const again = await second.goto(link.url);
    expect(again!.status()).toBe(410);
    await expect(mainText(second)).resolves.toContain('not valid');
    await expect(second.getByRole('button', { name: 'Open the dashboard' }).count()).resolves.toBe(0);

    // Expired: the row's expiry moved into the past stands for ten minutes passing.
    const late = await dashboardLink(t, a);
    const open = await second.goto(late.url);
    expect(open!.status()).toBe(200);
    await t.db.query(`UPDATE dashboard_links SET expires_at = now() - interval '1 second' WHERE token_hash = $1`, [tokenHash(late.token)]);
    await second.getByRole('button', { name: 'Open the dashboard' }).click();
    await second.getByRole('heading', { level: 1, name: 'Link not valid' }).waitFor();
    await expect(second.goto(late.url).then((r) => r!.status())).resolves.toBe(410);
    // And the link was stored only as its hash.
    const stored = await t.db.query(`SELECT count(*)::int AS n FROM dashboard_links WHERE token_hash = $1 OR token_hash = $2`, [late.token, link.token]);
    expect(stored[0].n).toBe(0);

    // Sign out ends the session: the overview asks to sign in.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Signed out' }).waitFor();
    const after = await page.goto(link.url.replace(/\/sign-in.*/, ''));
    expect(after!.status()).toBe(401);
    await Promise.all([context.close(), other.close()]);
  });

  it('without a session every page answers 401 and cannot be framed', async () => {
    for (const path of ['/dashboard', '/dashboard/keys', '/dashboard/webhooks', '/dashboard/deliveries', '/dashboard/requests', '/dashboard/jobs']) {
      const res = await fetch(t.baseUrl + path);
      expect(res.status).toBe(401);
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      await res.arrayBuffer();
    }
  });
});

describe('partner dashboard: embedding', () => {
  it("may be framed by the partner's allowed origins only; in another site's frame the sign-in opens a new tab", async () => {
    // The partner's admin: a real page on localhost, another site than 127.0.0.1 (where the dashboard is served).
    let frameSrc = '';
    const adminSite = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<h1>Partner admin</h1><iframe title="Dashboard" src="${frameSrc}" width="800" height="500"></iframe>`);
    });
    await new Promise<void>((resolve) => adminSite.listen(0, '127.0.0.1', resolve));
    const adminOrigin = `http://localhost:${(adminSite.address() as AddressInfo).port}`;
    const admin = await createAdmin(t);
    const framer = await createPartner(t, { plan: 'growth', name: 'Framing Partner' });
    const patched = await admin.http.patch(`/api/admin/partners/${framer.partnerId}`, { allowed_origins: [adminOrigin] });
    expect(patched.status).toBe(200);

    const { context, page } = await signedIn(browser, t, framer);
    const overview = await page.goto(`${t.baseUrl}/dashboard`);
    expect(overview!.headers()['content-security-policy']).toContain(`frame-ancestors ${adminOrigin}`);
    const other = await signedIn(browser, t, b);
    const unframed = await other.page.goto(`${t.baseUrl}/dashboard/webhooks`);
    expect(unframed!.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    await other.context.close();

    // The partner's admin page frames a sign-in link: the SameSite=Lax cookie would not be kept in that frame, so
    // the link's page offers to open the dashboard in a new tab (without using the link up).
    frameSrc = (await dashboardLink(t, framer)).url;
    const host = await context.newPage();
    await host.goto(`${adminOrigin}/learning`);
    const frame = host.frameLocator('iframe');
    await frame.getByText('opens in a new tab').waitFor();
    await expect(frame.locator('form').getAttribute('target')).resolves.toBe('_blank');
    await shot(host, 'embedded-sign-in');
    const [tab] = await Promise.all([context.waitForEvent('page'), frame.getByRole('button', { name: 'Open the dashboard' }).click()]);
    await tab.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await expect(tab.locator('header').innerText()).resolves.toContain('Framing Partner');
    await context.close();
    adminSite.closeAllConnections();
    await new Promise((resolve) => adminSite.close(resolve));
  });
});

describe('partner dashboard: isolation', () => {
  it("every page shows this partner and mode only; another partner's or mode's records are not found", async () => {
    const marker = { a: 'https://acme-test.example.com/hooks', aLive: 'https://acme-live.example.com/hooks', b: 'https://beta.example.com/hooks' };
    const hook = async (p: CreatedPartner, url: string) =>
      (await p.http.post('/api/connect/webhooks', { url, events: ['course.enrolled'], secret: 'secret-0123456789abcdef' })).body.data.id as string;
    const [aHook, aLiveHook, bHook] = [await hook(a, marker.a), await hook(aLive, marker.aLive), await hook(b, marker.b)];
    const job = async (p: CreatedPartner) =>
      (await p.http.post('/api/enroll/bulk', { enrollments: [{ user_id: 2_000_000_000, course_id: 1 }] })).body.data.job.id as string;
    const [aJob, aLiveJob, bJob] = [await job(a), await job(aLive), await job(b)];
    const bTestRes = await b.http.post(`/api/connect/webhooks/${bHook}/test`);
    const bTest = bTestRes.body.data.webhook_id as string;
    const aTest = (await a.http.post(`/api/connect/webhooks/${aHook}/test`)).body.data.webhook_id as string;
    await flushRequests();

    const { context, page } = await signedIn(browser, t, a);
    const seen: Record<string, string> = {};
    for (const path of ['/dashboard', '/dashboard/keys', '/dashboard/webhooks', '/dashboard/deliveries', '/dashboard/requests', '/dashboard/jobs']) {
      await page.goto(t.baseUrl + path);
      seen[path] = await page.locator('body').innerText();
      for (const foreign of [marker.aLive, marker.b, aLiveHook, bHook, aLiveJob, bJob, bTest, b.key.slice(0, 14), aLive.key.slice(0, 14), 'Beta Academy']) {
        expect(seen[path]).not.toContain(foreign);
      }
    }
    expect(seen['/dashboard/webhooks']).toContain(marker.a);
    expect(seen['/dashboard/deliveries']).toContain(aTest);
    expect(seen['/dashboard/jobs']).toContain(aJob);
    expect(seen['/dashboard/keys']).toContain(a.key.slice(0, 14));
    expect(seen['/dashboard/requests']).toContain('/api/enroll/bulk');

    for (const path of [
      `/dashboard/webhooks/${bHook}`,
      `/dashboard/webhooks/${aLiveHook}`,
      `/dashboard/jobs/${bJob}`,
      `/dashboard/jobs/${aLiveJob}`,
      `/dashboard/webhooks/${bHook}/deliveries/${bTest}`,
      `/dashboard/webhooks/${aHook}/deliveries/${bTest}`,
    ]) {
      const res = await page.goto(t.baseUrl + path);
      expect(res!.status()).toBe(404);
    }
    const keyOfB = b.keyId;
    expect((await page.goto(`${t.baseUrl}/dashboard/keys/${keyOfB}/revoke`))!.status()).toBe(404);
    await context.close();
  });
});

describe('partner dashboard: keys, usage and requests', () => {
  it('a new key is shown once, works, and once revoked is refused', async () => {
    const { context, page } = await signedIn(browser, t, a);
    await page.goto(`${t.baseUrl}/dashboard/keys`);
    await page.getByLabel('Name (optional)').fill('CI deploys');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.locator('#new-key').innerText();
    expect(key).toMatch(/^eck_test_[0-9A-Za-z]{38}$/);
    await shot(page, 'keys');
    expect((await t.http.withKey(key).get('/api/partners/me')).status).toBe(200);

    await page.goto(`${t.baseUrl}/dashboard/keys`);
    const listed = await mainText(page);
    expect(listed).not.toContain(key);
    expect(listed).toContain(key.slice(0, 14));

    await page.getByRole('link', { name: `Revoke ${key.slice(0, 14)}` }).click();
    await page.getByRole('heading', { level: 1, name: 'Revoke key' }).waitFor();
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('The key is revoked.').waitFor();
    const refused = await t.http.withKey(key).get('/api/partners/me');
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('revoked_api_key');
    await context.close();
  });

  it('usage and the requests page move after a few API calls, and the requests filter by status', async () => {
    const { context, page } = await signedIn(browser, t, a);
    const before = Number((await page.locator('#usage-calls').innerText()).replace(/,/g, ''));
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await a.http.get('/api/partners/me')).headers.get('x-request-id')!);
    const missing = await a.http.get('/api/connect/webhooks/whk_doesnotexist0000000000');
    expect(missing.status).toBe(404);
    await flushRequests();

    await page.reload();
    const after = Number((await page.locator('#usage-calls').innerText()).replace(/,/g, ''));
    expect(after).toBeGreaterThanOrEqual(before + 4);
    const today = new Date().toISOString().slice(0, 10);
    const row = page.locator('details table tr', { hasText: today });
    await page.locator('details summary').click();
    expect(Number(await row.locator('td').nth(1).innerText())).toBeGreaterThanOrEqual(4);
    await shot(page, 'overview');

    await page.goto(`${t.baseUrl}/dashboard/requests`);
    const all = await mainText(page);
    for (const id of ids) expect(all).toContain(id);
    await shot(page, 'requests');
    await page.getByLabel('Status').selectOption('4xx');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/status=4xx/);
    const errors = await mainText(page);
    expect(errors).toContain(missing.headers.get('x-request-id')!);
    for (const id of ids) expect(errors).not.toContain(id);
    await context.close();
  });
});

describe('partner dashboard: CSRF', () => {
  it('refuses a change without the CSRF token and a cross-site form POST', async () => {
    const { context, page } = await signedIn(browser, t, a);
    const keysBefore = (await t.db.query(`SELECT count(*)::int AS n FROM api_keys WHERE partner_id = $1`, [a.partnerId]))[0].n as number;
    await page.goto(`${t.baseUrl}/dashboard/keys`);
    const csrf = await page.locator('input[name=_csrf]').first().getAttribute('value');

    // Same origin, signed in, but no token.
    const noToken = await page.request.post(`${t.baseUrl}/dashboard/keys`, { form: { name: 'x' }, headers: { origin: t.baseUrl } });
    expect(noToken.status()).toBe(403);
    await expect(noToken.text()).resolves.toContain('CSRF');

    // A page on another site posting a form (even with the right token): the browser sends it cross-site.
    await context.route('http://evil.example/**', (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<form id="f" method="post" action="${t.baseUrl}/dashboard/keys"><input name="_csrf" value="${csrf}"><input name="name" value="evil"></form><script>document.getElementById('f').submit()</script>`,
      }),
    );
    const evil = await context.newPage();
    const response = evil.waitForResponse((r) => r.url() === `${t.baseUrl}/dashboard/keys` && r.request().method() === 'POST');
    await evil.goto('http://evil.example/attack');
    expect([401, 403]).toContain((await response).status());

    // The same request with the cookie and token but another Origin, from a client that sends the cookie anyway.
    const [cookie] = await context.cookies(`${t.baseUrl}/dashboard`);
    const forged = await fetch(`${t.baseUrl}/dashboard/keys`, {
      method: 'POST',
      headers: { cookie: `${cookie.name}=${cookie.value}`, origin: 'http://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: `_csrf=${csrf}&name=evil`,
    });
    expect(forged.status).toBe(403);
    await forged.arrayBuffer();
    const keysAfter = (await t.db.query(`SELECT count(*)::int AS n FROM api_keys WHERE partner_id = $1`, [a.partnerId]))[0].n as number;
    expect(keysAfter).toBe(keysBefore);
    await context.close();
  });
});
