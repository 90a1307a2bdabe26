import { createPartner } from '../support/factories';
import { HttpClient } from '../support/http';
import { startApp, TestApp } from '../support/app';

let t: TestApp;
let api: HttpClient;
beforeAll(async () => {
  t = await startApp();
  api = (await createPartner(t)).http;
});
afterAll(() => t.close());

describe('HTTP conventions (contract sections 1 and 2)', () => {
  it('answers an unknown route with 404 route_not_found in the error envelope', async () => {
    const res = await t.http.get('/api/nope');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      status: 'error',
      error: { code: 'route_not_found', message: expect.any(String), request_id: expect.any(String) },
    });
  });

  it('echoes a well-formed X-Request-Id', async () => {
    const res = await api.get('/api/courses', { headers: { 'X-Request-Id': 'abc.DEF_123-x' } });
    expect(res.headers.get('x-request-id')).toBe('abc.DEF_123-x');
  });

  it('replaces a malformed X-Request-Id with a generated one', async () => {
    const res = await t.http.get('/api/nope', { headers: { 'X-Request-Id': 'bad id with spaces' } });
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(/^req_[0-9a-f]{32}$/);
    expect(res.body.error.request_id).toBe(id);
  });

  it('rejects a body that is not JSON with 400 invalid_json', async () => {
    const res = await t.http.request('POST', '/api/courses', { raw: '{"a":', headers: { 'Content-Type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_json');
  });

  it('rejects a body that is not application/json with 415', async () => {
    const res = await t.http.request('POST', '/api/courses', { raw: 'a=1', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('unsupported_media_type');
  });

  it('rejects a body over 100 kB with 413', async () => {
    const res = await t.http.request('POST', '/api/courses', {
      raw: JSON.stringify({ x: 'a'.repeat(110 * 1024) }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });

  it('rejects a JSON array body with 400 validation_failed', async () => {
    const res = await t.http.request('POST', '/api/courses', { raw: '[1,2]', headers: { 'Content-Type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
  });

  it('serves liveness and readiness outside /api', async () => {
    expect((await t.http.get('/health/live')).body).toEqual({ status: 'ok' });
    const ready = await t.http.get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', checks: { postgres: { status: 'up' }, redis: { status: 'up' } } });
  });

  it('serves the OpenAPI document and the Swagger UI', async () => {
    const doc = await t.http.get('/docs/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\./);
    expect(doc.body.components.securitySchemes.api_key).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }));
    const ui = await t.http.get('/docs');
    expect(ui.status).toBe(200);
    expect(ui.text).toContain('swagger');
  });
});
