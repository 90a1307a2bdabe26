import { startApp, TestApp } from '../support/app';
import { createAdmin, createKey, createPartner, CreatedPartner } from '../support/factories';
import { issueCertificate, clientIps } from './certificate.helpers';

const LIMIT = 5;
let t: TestApp;
let partner: CreatedPartner;
let admin: CreatedPartner;

beforeAll(async () => {
  t = await startApp({ TRUST_PROXY: '1', VERIFY_LIMIT_PER_MINUTE: String(LIMIT) });
  partner = await createPartner(t);
  admin = await createAdmin(t);
});
afterAll(() => t.close());

const clientIp = clientIps('192.0');

function page(path: string, ip = clientIp()) {
  return t.http.get(path, { headers: { 'X-Forwarded-For': ip, Accept: 'text/html' } });
}

function expectPageHeaders(headers: Headers): void {
  expect(headers.get('content-type')).toBe('text/html; charset=utf-8');
  const csp = headers.get('content-security-policy')!;
  expect(csp).toMatch(
    /^default-src 'none'; style-src 'nonce-[A-Za-z0-9+/=]+'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'$/,
  );
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('x-robots-tag')).toBe('noindex, nofollow');
  expect(headers.get('referrer-policy')).toBe('no-referrer');
  expect(headers.get('cache-control')).toBe('no-store');
}

describe('GET /verify/{cert_id}', () => {
  it('is where verify_url points, and shows a valid certificate with its public fields only', async () => {
    const cert = await issueCertificate(t, partner);
    const [event] = await t.db.query(`SELECT payload FROM events WHERE type = 'certificate.issued' AND payload->>'certificate_id' = $1`, [cert.certificateId]);
    expect(event.payload.verify_url).toBe(cert.verifyUrl);

    const res = await page(new URL(cert.verifyUrl).pathname);
    expect(res.status).toBe(200);
    expectPageHeaders(res.headers);
    const html = res.text;
    expect(html).toContain('data-verdict="valid"');
    // Issued with a test key: the verdict says it is a test certificate.
    expect(html).toContain('data-test="true"');
    expect(html).toContain('Test certificate: not a real one');
    expect(html).toContain(`<dd class="holder" dir="auto" id="holder">${cert.holderName}</dd>`);
    expect(html).toContain(`<dd dir="auto" id="course">${cert.courseTitle}</dd>`);
    const date = new Date(`${cert.issuedAt}T00:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
    expect(html).toContain(`<time datetime="${cert.issuedAt}">${date}</time>`);
    expect(html).toContain('<dd>Learning Platform (test)</dd>');
    expect(html).toContain(`<code id="certificate-id">${cert.certificateId}</code>`);
    expect(html).toContain('not a real certificate');
    expect(html).toContain(`href="/api/certificates/${cert.certificateId}/download"`);
    expect(html).toContain(`href="/api/certificates/${cert.certificateId}/credential"`);
    // No script at all, and nothing about the learner beyond the certificate.
    expect(html).not.toMatch(/<script/i);
    for (const personal of [cert.email, cert.externalUserId, `"${cert.userId}"`]) expect(html).not.toContain(personal);
  });

  it('accepts the id as typed by a person (lower case) and shows a live certificate without the test note', async () => {
    const live = await createKey(t, partner.partnerId, 'live');
    const cert = await issueCertificate(t, live);
    const res = await page(`/verify/${cert.certificateId.toLowerCase()}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`<code id="certificate-id">${cert.certificateId}</code>`);
    expect(res.text).toContain('<dd>Learning Platform</dd>');
    expect(res.text).not.toContain('not a real certificate');
  });

  it('says a revoked certificate is revoked (200) and offers neither the PDF nor the credential', async () => {
    const cert = await issueCertificate(t, partner);
    expect((await admin.http.post(`/api/admin/certificates/${cert.certificateId}/revoke`)).status).toBe(200);
    const res = await page(`/verify/${cert.certificateId}`);
    expect(res.status).toBe(200);
    expectPageHeaders(res.headers);
    expect(res.text).toContain('data-verdict="revoked"');
    expect(res.text).toContain('This certificate has been revoked');
    expect(res.text).not.toContain('Valid certificate');
    expect(res.text).not.toContain('/download"');
    expect(res.text).not.toContain('/credential"');
  });

  it.each(['TST-2026-0000000000', 'not-a-certificate', '%3Cb%3Ebold%3C%2Fb%3E'])(
    'answers a 404 page for the unknown or malformed id %p without echoing it',
    async (id) => {
      const res = await page(`/verify/${id}`);
      expect(res.status).toBe(404);
      expectPageHeaders(res.headers);
      expect(res.text).toContain('Certificate not found');
      expect(res.text).toContain('data-verdict="unknown"');
      expect(res.text).not.toContain(decodeURIComponent(id));
    },
  );

  it('escapes what the certificate holds', async () => {
    const cert = await issueCertificate(t, partner, { name: `<script>alert("x")</script> O'Brien & Co`, courseTitle: `<img src=x onerror=alert(1)> "Quotes"` });
    const res = await page(`/verify/${cert.certificateId}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; O&#39;Brien &amp; Co');
    expect(res.text).toContain('&lt;img src=x onerror=alert(1)&gt; &quot;Quotes&quot;');
    expect(res.text).not.toMatch(/<script|<img/i);
  });

  it('shows names in any script as they are, marked for automatic direction', async () => {
    for (const name of ['王小明', 'سارة', 'Анна Каренина', 'Αλέξανδρος']) {
      const cert = await issueCertificate(t, partner, { name });
      const res = await page(`/verify/${cert.certificateId}`);
      expect(res.text).toContain(`<dd class="holder" dir="auto" id="holder">${name}</dd>`);
    }
  });

  it('is rate-limited per client IP with a 429 page and Retry-After, apart from the JSON endpoint', async () => {
    const ip = clientIp();
    for (let i = 0; i < LIMIT; i++) expect((await page('/verify/TST-2026-0000000000', ip)).status).toBe(404);
    const limited = await page('/verify/TST-2026-0000000000', ip);
    expect(limited.status).toBe(429);
    expectPageHeaders(limited.headers);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.text).toContain('Too many requests');
    // The JSON endpoint keeps its own counter.
    expect((await t.http.get('/api/certificates/verify/TST-2026-0000000000', { headers: { 'X-Forwarded-For': ip } })).status).toBe(404);
  });

  it('does not count against the quota of a key sent along', async () => {
    const cert = await issueCertificate(t, partner);
    const res = await t.http.get(`/verify/${cert.certificateId}`, { headers: { 'X-Forwarded-For': clientIp(), 'X-API-Key': partner.key } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-quota-remaining')).toBeNull();
  });
});

describe('OpenAPI', () => {
  it('documents the page, the credential and the key set as keyless, with their content types', async () => {
    const doc = (await t.http.get('/docs/openapi.json')).body;
    const pageOp = doc.paths['/verify/{cert_id}'].get;
    const credentialOp = doc.paths['/api/certificates/{cert_id}/credential'].get;
    const jwksOp = doc.paths['/.well-known/jwks.json'].get;
    for (const op of [pageOp, credentialOp, jwksOp]) expect(op.security).toEqual([]);
    expect(Object.keys(pageOp.responses).sort()).toEqual(['200', '404', '405', '429', '503']);
    expect(Object.keys(pageOp.responses['200'].content)).toEqual(['text/html']);
    expect(Object.keys(credentialOp.responses).sort()).toEqual(['200', '404', '405', '410', '429', '500', '503']);
    expect(Object.keys(credentialOp.responses['200'].content)).toEqual(['application/vc+jwt']);
    expect(Object.keys(jwksOp.responses).sort()).toEqual(['200', '405', '429', '503']);
  });
});
