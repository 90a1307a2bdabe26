import { request as httpRequest } from 'node:http';
import { startApp, TestApp } from '../../support/app';
import { createAdmin, createPartner, CreatedPartner } from '../../support/factories';

/** Finding 10: JSON responses carried no nosniff; Swagger UI could be framed by any site. */
let t: TestApp;
let p: CreatedPartner;
let adminKey: string;
beforeAll(async () => {
  t = await startApp();
  p = await createPartner(t, { plan: 'growth' });
  adminKey = (await createAdmin(t)).key;
});
afterAll(() => t.close());

/** A request whose headers Node's parser refuses (answered outside Express). */
function oversizedHeaders(): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  const { port } = new URL(t.baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/api/courses', headers: { 'X-Filler': 'x'.repeat(20_000) } }, (res) => {
      // The server answers before reading the whole request and closes: the socket is done with once the answer is read
      // (left to the agent, it stayed open past the app's close and kept jest's worker alive).
      res.resume().on('end', () => req.destroy());
      resolve({ status: res.statusCode!, headers: res.headers });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('X-Content-Type-Options: nosniff on every JSON response', () => {
  it.each([
    ['a keyed success', () => p.http.get('/api/courses?limit=1')],
    ['a keyless success', () => t.http.get('/api/webinars/public')],
    ['an authentication error', () => t.http.get('/api/courses')],
    ['an unknown route', () => t.http.get('/api/nothing-here')],
    ['a validation error', () => p.http.get('/api/courses?limit=0')],
    ['a probe', () => t.http.get('/health/live')],
    ['the OpenAPI document', () => t.http.get('/docs/openapi.json')],
    ['a live page state', () => t.http.get('/live/state/wbn_0000000000000000000000')],
    ['the queues dashboard API', () => t.http.get('/admin/queues/api/queues', { headers: { 'X-API-Key': adminKey } })],
    ['the queues dashboard refusal', () => t.http.get('/admin/queues/api/queues')],
  ])('%s', async (_label, call) => {
    const res = await call();
    expect(res.headers.get('content-type')).toMatch(/json/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('a request refused by the HTTP parser', async () => {
    const res = await oversizedHeaders();
    expect(res.status).toBe(431);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('Swagger UI', () => {
  it.each(['/docs', '/docs/', '/docs/swagger-ui-init.js'])('%s may not be framed by any page', async (path) => {
    const res = await fetch(`${t.baseUrl}${path}`);
    // Read to the end: an unread body (swagger-ui-init.js carries the 1 MB OpenAPI document) keeps fetch's socket
    // open after the app has closed, with the server's FIN queued behind the unread bytes: jest's worker could not exit.
    await res.arrayBuffer();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('is configured not to persist the key in the browser', async () => {
    const init = await (await fetch(`${t.baseUrl}/docs/swagger-ui-init.js`)).text();
    expect(init).toMatch(/"persistAuthorization":\s*false/);
  });
});

/** Issue 26, finding 4: Bull Board could be framed, and its own Express app announced itself with X-Powered-By. */
describe('the queues dashboard (/admin/queues)', () => {
  const basic = () => ({ Authorization: `Basic ${Buffer.from(`operator:${adminKey}`).toString('base64')}` });

  it.each(['/admin/queues', '/admin/queues/api/queues'])('%s may not be framed and does not name its framework', async (path) => {
    const res = await fetch(`${t.baseUrl}${path}`, { headers: basic() });
    await res.arrayBuffer();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  it('sends the same headers on its refusal', async () => {
    const res = await fetch(`${t.baseUrl}/admin/queues`);
    await res.arrayBuffer();
    expect(res.status).toBe(401);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-powered-by')).toBeNull();
  });
});

describe('no response names the framework (X-Powered-By)', () => {
  it.each(['/api/courses', '/docs', '/docs/swagger-ui.css', '/health/live', '/static/thumbnails/0.svg', '/nothing-here'])('%s', async (path) => {
    const res = await fetch(`${t.baseUrl}${path}`);
    await res.arrayBuffer();
    expect(res.headers.get('x-powered-by')).toBeNull();
  });
});

/** Issue 26, finding 6: no Strict-Transport-Security anywhere, even when the public URL is https. */
describe('Strict-Transport-Security', () => {
  it('is sent on every response when PUBLIC_BASE_URL is https', async () => {
    const https = await startApp({ PUBLIC_BASE_URL: 'https://api.example.com' });
    try {
      for (const path of ['/api/courses', '/health/live', '/docs', '/nothing-here']) {
        const res = await fetch(`${https.baseUrl}${path}`);
        await res.arrayBuffer();
        expect({ path, hsts: res.headers.get('strict-transport-security') }).toEqual({ path, hsts: expect.stringMatching(/^max-age=\d{8,}/) });
      }
    } finally {
      await https.close();
    }
  });

  it('is not sent when PUBLIC_BASE_URL is plain http (development)', async () => {
    const res = await fetch(`${t.baseUrl}/health/live`);
    await res.arrayBuffer();
    expect(res.headers.get('strict-transport-security')).toBeNull();
  });
});
