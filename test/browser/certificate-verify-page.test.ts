import { chromiumPath, screenshot, servePublicBaseFrom } from '../support/chromium';
import { Browser, chromium, Page } from 'playwright-core';
import { startApp, TestApp } from '../support/app';
import { createAdmin, createKey, createPartner, CreatedPartner } from '../support/factories';
import { issueCertificate } from '../integration/certificate.helpers';

jest.setTimeout(120_000);

const PUBLIC_BASE = 'http://localhost:3999';

let t: TestApp;
let live: CreatedPartner;
let admin: CreatedPartner;
let browser: Browser;

beforeAll(async () => {
  t = await startApp();
  const partner = await createPartner(t, { plan: 'enterprise' });
  live = await createKey(t, partner.partnerId, 'live');
  admin = await createAdmin(t);
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** A page that reaches the test server under PUBLIC_BASE_URL, so verify_url is opened exactly as handed out; it records CSP refusals. */
async function openPage(viewport = { width: 1000, height: 760 }): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport });
  await servePublicBaseFrom(context, PUBLIC_BASE, t.baseUrl);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    // The 404 page's own status is reported as a failed load; anything else is a problem (a CSP refusal above all).
    if (m.type() === 'error' && !/status of 404/.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  return { page, problems };
}

// The docs' pictures (UPDATE_SCREENSHOTS=1 refreshes them).
const shot = (page: Page, name: string) => screenshot(page, name);

describe('certificate verification page in a real browser', () => {
  it('opens from verify_url and shows a valid certificate, styled under its CSP, with working links', async () => {
    const cert = await issueCertificate(t, live, { name: 'Ada Lovelace', courseTitle: 'Introduction to Data Science' });
    const { page, problems } = await openPage();
    const response = await page.goto(cert.verifyUrl);
    expect(response?.status()).toBe(200);
    await expect(page.title()).resolves.toBe(`Valid certificate ${cert.certificateId}`);
    await expect(page.getByRole('status').innerText()).resolves.toContain('Valid certificate');
    await expect(page.locator('#holder').innerText()).resolves.toBe('Ada Lovelace');
    await expect(page.locator('#course').innerText()).resolves.toBe('Introduction to Data Science');
    await expect(page.locator('#certificate-id').innerText()).resolves.toBe(cert.certificateId);
    // The nonce'd stylesheet applied (a CSP refusal would leave the verdict unstyled) and nothing was refused.
    await expect(page.evaluate('getComputedStyle(document.querySelector(".verdict")).backgroundColor')).resolves.toBe('rgb(232, 245, 233)');
    expect(problems).toEqual([]);
    await shot(page, 'certificate-verify-valid');

    // The links are followed as a person would (a same-origin click; the page's CSP allows no script to fetch them).
    const [pdf] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/download')),
      page.getByRole('link', { name: 'Download the certificate (PDF)' }).click(),
    ]);
    expect(pdf.status()).toBe(200);
    expect(pdf.headers()['content-type']).toBe('application/pdf');
    expect(pdf.url()).toBe(`${PUBLIC_BASE}/api/certificates/${cert.certificateId}/download`);
    const again = await openPage();
    await again.page.goto(cert.verifyUrl);
    const [credential] = await Promise.all([
      again.page.waitForResponse((r) => r.url().endsWith('/credential')),
      again.page.getByRole('link', { name: /Digital credential/ }).click(),
    ]);
    expect(credential.status()).toBe(200);
    expect(credential.headers()['content-type']).toBe('application/vc+jwt');
  });

  it('says so when the certificate has been revoked', async () => {
    const cert = await issueCertificate(t, live, { name: 'Grace Hopper', courseTitle: 'Compilers from Scratch' });
    await admin.http.post(`/api/admin/certificates/${cert.certificateId}/revoke`);
    const { page, problems } = await openPage();
    await page.goto(cert.verifyUrl);
    await expect(page.getByRole('status').innerText()).resolves.toContain('This certificate has been revoked');
    await expect(page.getByRole('link').count()).resolves.toBe(0);
    expect(problems).toEqual([]);
    await shot(page, 'certificate-verify-revoked');
  });

  it('answers an unknown id with a 404 page', async () => {
    const { page, problems } = await openPage();
    const response = await page.goto(`${PUBLIC_BASE}/verify/ECK-2026-0000000000`);
    expect(response?.status()).toBe(404);
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Certificate not found');
    expect(problems).toEqual([]);
    await shot(page, 'certificate-verify-unknown');
  });

  it('lays a right-to-left name out right to left, and fits a phone screen', async () => {
    const cert = await issueCertificate(t, live, { name: 'سارة أحمد', courseTitle: 'مقدمة في علم البيانات' });
    const { page } = await openPage({ width: 390, height: 844 });
    await page.goto(cert.verifyUrl);
    await expect(page.locator('#holder').evaluate((el) => el.matches(':dir(rtl)'))).resolves.toBe(true);
    await expect(page.locator('#course').evaluate((el) => el.matches(':dir(rtl)'))).resolves.toBe(true);
    await expect(page.locator('#certificate-id').evaluate((el) => el.matches(':dir(ltr)'))).resolves.toBe(true);
    // No horizontal scrolling on a narrow screen.
    await expect(page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).resolves.toBe(true);
  });
});
