import { createPartner } from '../support/factories';
import { HttpClient } from '../support/http';
import { startApp, TestApp } from '../support/app';

let t: TestApp;
let api: HttpClient;
beforeAll(async () => {
  t = await startApp();
  api = (await createPartner(t, { plan: 'growth' })).http;
});
afterAll(() => t.close());

const envelope = (code: string) => ({
  status: 'error',
  error: expect.objectContaining({ code, message: expect.any(String), request_id: expect.stringMatching(/^req_/) }),
});

describe('HTTP details (wrong methods, unknown paths, bodies of the wrong shape)', () => {
  it.each([
    ['DELETE', '/api/courses', 'GET, HEAD'],
    ['PUT', '/api/courses/1', 'GET, HEAD'],
    ['GET', '/api/partners/register', 'POST'],
    ['POST', '/health/live', 'GET, HEAD'],
    ['DELETE', '/docs/openapi.json', 'GET, HEAD'],
  ])('answers %s %s with 405 method_not_allowed and Allow: %s', async (method, path, allow) => {
    const res = await api.request(method, path);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(allow);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual(envelope('method_not_allowed'));
    expect(res.body.error.details).toEqual({ allow: allow.split(', ') });
  });

  it('answers a wrong method before asking for a key (nothing is served there anyway)', async () => {
    const res = await t.http.request('PATCH', '/api/courses');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
  });

  it.each(['/nope', '/api/nope', '/static', '/docs/nope/deeper', '/health/live/extra', '/api/courses/1/nope'])(
    'answers the unknown path %s with the JSON 404 envelope, never an HTML page',
    async (path) => {
      for (const method of ['GET', 'POST', 'DELETE']) {
        const res = await t.http.request(method, path);
        expect({ method, status: res.status, type: res.headers.get('content-type') }).toEqual({
          method,
          status: 404,
          type: expect.stringMatching(/^application\/json/),
        });
        expect(res.body).toEqual(envelope('route_not_found'));
        expect(res.headers.get('x-request-id')).toBe(res.body.error.request_id);
      }
    },
  );

  it.each(['null', '3', '"text"', 'true', '[]', '[{"name":"x"}]'])(
    'answers the well-formed JSON body %s where an object is expected with 400 validation_failed',
    async (raw) => {
      const res = await t.http.request('POST', '/api/partners/register', { raw, headers: { 'Content-Type': 'application/json' } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(envelope('validation_failed'));
      expect(res.body.error.details).toEqual([{ field: 'body', message: 'body must be a JSON object' }]);
    },
  );

  it('still calls a body that is not JSON at all invalid_json', async () => {
    const res = await t.http.request('POST', '/api/partners/register', { raw: 'nul', headers: { 'Content-Type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_json');
  });

  it('refuses null in a field the document does not declare nullable, required or optional', async () => {
    const required = await t.http.post('/api/partners/register', { name: null, email: 'dev@acme.example' });
    expect(required.status).toBe(400);
    expect(required.body.error.details).toEqual(expect.arrayContaining([{ field: 'name', message: 'name cannot be null' }]));
    // user_id is optional (external_user_id may name the learner instead), but not nullable.
    const optional = await api.post('/api/enroll', { user_id: null, external_user_id: 'nobody-null', course_id: 1 });
    expect(optional.status).toBe(400);
    expect(optional.body.error.details).toEqual([{ field: 'user_id', message: 'user_id cannot be null' }]);
  });

  it('refuses null inside nested rows too (bulk enrolment)', async () => {
    const res = await api.post('/api/enroll/bulk', { enrollments: [{ user_id: null, course_id: 1 }] });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual(expect.arrayContaining([{ field: 'enrollments[0].user_id', message: 'enrollments[0].user_id cannot be null' }]));
  });

  it("serves the partner's guide at /docs/guide and the other docs pages below it, as HTML without script", async () => {
    const guide = await fetch(`${t.baseUrl}/docs/guide`);
    expect(guide.status).toBe(200);
    expect(guide.headers.get('content-type')).toMatch(/^text\/html/);
    expect(guide.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await guide.text();
    expect(html).toMatch(/<h1[^>]*>Partner(&#39;|')s guide<\/h1>/);
    for (const code of ['validation_failed', 'method_not_allowed', 'idempotency_key_reused', 'webinar_full', 'service_unavailable'])
      expect(html).toContain(code);
    expect(html).toContain('href="/docs/guide/webhooks"');
    const webhooks = await fetch(`${t.baseUrl}/docs/guide/webhooks`);
    expect(webhooks.status).toBe(200);
    expect(await webhooks.text()).toContain('Verify the signature');
    const missing = await t.http.get('/docs/guide/nope');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('route_not_found');
  });

  it("lists every error code the service can send in the partner's guide", async () => {
    const { ERROR_CODES } = await import('../../src/common/errors');
    const html = await (await fetch(`${t.baseUrl}/docs/guide`)).text();
    expect(Object.keys(ERROR_CODES).filter((code) => !html.includes(`<code>${code}</code>`))).toEqual([]);
  });
});
