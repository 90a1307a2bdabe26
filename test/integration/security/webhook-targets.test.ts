import { startApp, TestApp } from '../../support/app';
import { createPartner, CreatedPartner } from '../../support/factories';
import { resolveSafely } from '../../../src/webhooks/ssrf-guard';

/**
 * Registration errors must not say what a refused host resolves to ("… address (10.0.0.5)" would make registration
 * a DNS oracle for internal names), and only allowed ports are accepted.
 */
const body = (url: string) => ({ url, events: ['course.enrolled'], secret: 'a-very-secret-signing-key' });
const ADDRESSES = /127\.0\.0\.1|::1|\b\d{1,3}(\.\d{1,3}){3}\b/;

describe('webhook registration with the SSRF guard on', () => {
  let t: TestApp;
  let p: CreatedPartner;
  beforeAll(async () => {
    t = await startApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false', RUN_WORKER: 'false' });
    p = await createPartner(t, { plan: 'growth' });
  });
  afterAll(() => t.close());

  it('never says what a host resolves to, and answers a private name like a name that does not resolve', async () => {
    const privateName = await p.http.post('/api/connect/webhooks', body('http://localhost:8080/hook'));
    const unknownName = await p.http.post('/api/connect/webhooks', body('http://does-not-resolve.invalid:8080/hook'));
    for (const res of [privateName, unknownName]) {
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.text).not.toMatch(ADDRESSES);
    }
    expect(privateName.body.error.details).toEqual(unknownName.body.error.details);
  });

  it("keeps resolution out of the guard's own errors, which delivery attempts record", async () => {
    await expect(resolveSafely('localhost')).rejects.toThrow(/not a public address/);
    await expect(resolveSafely('localhost')).rejects.not.toThrow(ADDRESSES);
  });
});

describe('webhook ports', () => {
  let t: TestApp;
  let p: CreatedPartner;
  beforeAll(async () => {
    t = await startApp({ RUN_WORKER: 'false' });
    p = await createPartner(t, { plan: 'growth' });
  });
  afterAll(() => t.close());

  it.each([
    'https://hooks.example.com:22/in',
    'http://hooks.example.com:25/in',
    'https://hooks.example.com:1023/in',
    'http://127.0.0.1:6379/in',
    'https://hooks.example.com:5432/in',
    'https://hooks.example.com:11211/in',
  ])('refuses %s: well-known ports other than 80 and 443, and internal service ports', async (url) => {
    const res = await p.http.post('/api/connect/webhooks', body(url));
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'url', message: expect.stringMatching(/port/) }]);
  });

  it.each([
    'https://hooks.example.com/in',
    'http://hooks.example.com:80/in',
    'https://hooks.example.com:443/in',
    'https://hooks.example.com:8443/in',
    'http://127.0.0.1:40123/in',
  ])('accepts %s', async (url) => {
    expect((await p.http.post('/api/connect/webhooks', body(url))).status).toBe(201);
  });

  it('checks the port on update too', async () => {
    const created = await p.http.post('/api/connect/webhooks', body('https://hooks.example.com/in'));
    const res = await p.http.patch(`/api/connect/webhooks/${created.body.data.id}`, { url: 'https://hooks.example.com:22/in' });
    expect(res.status).toBe(400);
  });
});
