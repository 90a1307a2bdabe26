import { PassThrough } from 'node:stream';
import { generateApiKey } from '../../src/api-keys/api-key';
import { UsageLimiter } from '../../src/auth/usage-limiter';
import { RedisService } from '../../src/redis/redis.service';
import { startApp, TestApp } from '../support/app';
import { createAdmin, createKey, createPartner, CreatedPartner, unique } from '../support/factories';
import { waitFor } from '../support/webhook-receiver';

let t: TestApp;
let logs = '';
let admin: CreatedPartner;
beforeAll(async () => {
  const stream = new PassThrough();
  stream.on('data', (chunk) => (logs += chunk.toString()));
  t = await startApp({ LOG_LEVEL: 'info' }, stream);
  admin = await createAdmin(t);
});
afterAll(() => t.close());

const expectError = (res: { status: number; body: any }, status: number, code: string) => {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.body.status).toBe('error');
};

describe('API key refusals (spec section 5, contract section 3)', () => {
  it('refuses a missing key with 401 missing_api_key', async () => {
    expectError(await t.http.get('/api/courses'), 401, 'missing_api_key');
  });

  it.each(['nonsense', 'eck_test_short', `eck_prod_${'a'.repeat(38)}`])('refuses the malformed key %s with 401 invalid_api_key', async (key) => {
    expectError(await t.http.get('/api/courses', { key }), 401, 'invalid_api_key');
  });

  it('refuses a key whose checksum does not match with 401 invalid_api_key', async () => {
    const { key } = generateApiKey('test');
    const tampered = key.slice(0, 20) + (key[20] === 'a' ? 'b' : 'a') + key.slice(21);
    expectError(await t.http.get('/api/courses', { key: tampered }), 401, 'invalid_api_key');
  });

  it('refuses a well-formed key that was never issued with 401 invalid_api_key', async () => {
    expectError(await t.http.get('/api/courses', { key: generateApiKey('live').key }), 401, 'invalid_api_key');
  });

  it('refuses a revoked key with 401 revoked_api_key', async () => {
    const p = await createPartner(t);
    expect((await p.http.get('/api/courses')).status).toBe(200);
    expect((await admin.http.post(`/api/admin/keys/${p.keyId}/revoke`)).status).toBe(200);
    expectError(await p.http.get('/api/courses'), 401, 'revoked_api_key');
  });

  it('refuses keys of a suspended partner with 401 account_suspended, and accepts them again when reactivated', async () => {
    const p = await createPartner(t);
    expect((await admin.http.patch(`/api/admin/partners/${p.partnerId}`, { status: 'suspended' })).status).toBe(200);
    expectError(await p.http.get('/api/courses'), 401, 'account_suspended');
    await admin.http.patch(`/api/admin/partners/${p.partnerId}`, { status: 'active' });
    expect((await p.http.get('/api/courses')).status).toBe(200);
  });

  it('refuses a non-admin key on admin routes with 403 admin_only', async () => {
    const p = await createPartner(t, { plan: 'enterprise' });
    expectError(await p.http.get('/api/admin/production-access'), 403, 'admin_only');
    expectError(await p.http.post(`/api/admin/keys/${p.keyId}/revoke`), 403, 'admin_only');
  });

  it('lets an admin key act for the partner named by X-Partner-Id, and refuses an unknown one with 404 partner_not_found', async () => {
    const p = await createPartner(t, { plan: 'enterprise' });
    const external = unique('learner');
    const created = await admin.http.post(
      '/api/users',
      { external_user_id: external, name: 'Ada', email: 'ada@example.com' },
      { headers: { 'X-Partner-Id': String(p.partnerId), 'X-Partner-Mode': 'test' } },
    );
    expect(created.status).toBe(201);
    expect((await p.http.get(`/api/users/${created.body.data.id}`)).body.data.external_user_id).toBe(external);
    expectError(await admin.http.get(`/api/users/${created.body.data.id}`, { headers: { 'X-Partner-Id': '2147483647' } }), 404, 'partner_not_found');
    // A route with no 404 of its own documents this one too: the response is checked against the served document.
    expectError(await admin.http.get('/api/partners/me', { headers: { 'X-Partner-Id': '2147483647' } }), 404, 'partner_not_found');
  });
});

describe('plans', () => {
  it('lets the starter plan list and read courses, see its profile and manage webhooks', async () => {
    const p = await createPartner(t, { plan: 'starter' });
    expect((await p.http.get('/api/courses')).status).toBe(200);
    expect((await p.http.get('/api/partners/me')).status).toBe(200);
  });

  it('refuses the starter plan with 401 endpoint_not_in_plan on every route outside it (from the OpenAPI document)', async () => {
    const doc = (await t.http.get('/docs/openapi.json')).body;
    const starter = ['catalogue', 'account', 'webhooks'];
    const routes: Array<[string, string]> = [];
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const keyed = !(Array.isArray(op.security) && op.security.length === 0);
        if (keyed && op['x-plan-feature'] && !starter.includes(op['x-plan-feature'])) routes.push([method.toUpperCase(), path.replace(/\{[^}]+\}/g, '1')]);
      }
    }
    expect(routes.length).toBeGreaterThan(0);
    for (const [method, path] of routes) {
      const p = await createPartner(t, { plan: 'starter' });
      const res = await p.http.request(method, path, method === 'GET' ? {} : { body: {} });
      expect({ method, path, status: res.status, code: res.body?.error?.code }).toEqual({ method, path, status: 401, code: 'endpoint_not_in_plan' });
    }
  });

  it('applies a plan change at once', async () => {
    const p = await createPartner(t, { plan: 'starter' });
    await admin.http.patch(`/api/admin/partners/${p.partnerId}`, { plan: 'growth' });
    expect((await p.http.get('/api/partners/me')).body.data.plan).toBe('growth');
  });
});

describe('monthly quota', () => {
  it('sends X-Quota headers on keyed responses and omits them on unlimited plans', async () => {
    const starter = await createPartner(t, { plan: 'starter' });
    const res = await starter.http.get('/api/courses');
    expect(res.headers.get('x-quota-limit')).toBe('500');
    expect(res.headers.get('x-quota-remaining')).toBe('499');
    const reset = Number(res.headers.get('x-quota-reset'));
    const now = new Date();
    expect(reset).toBe(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) / 1000);
    const enterprise = await createPartner(t, { plan: 'enterprise' });
    expect((await enterprise.http.get('/api/courses')).headers.get('x-quota-limit')).toBeNull();
  });

  it('lets exactly the remaining number of parallel calls through and refuses the rest with 401 monthly_quota_exceeded', async () => {
    const p = await createPartner(t, { plan: 'growth' });
    const limiter = t.app.get(UsageLimiter);
    const redis = t.app.get(RedisService);
    await redis.client.set(limiter.quotaKey(p.partnerId, 'test'), String(50_000 - 30));
    const results = await Promise.all(Array.from({ length: 45 }, () => p.http.get('/api/partners/me')));
    const ok = results.filter((r) => r.status === 200).length;
    const refused = results.filter((r) => r.status === 401 && r.body.error.code === 'monthly_quota_exceeded').length;
    const limited = results.filter((r) => r.status === 429).length;
    // 45 calls may straddle two one-second windows of 50; none are rate-limited, so exactly 30 pass.
    expect({ ok, refused, limited }).toEqual({ ok: 30, refused: 15, limited: 0 });
    expect(await limiter.used(p.partnerId, 'test')).toBe(50_000);
  });

  it('counts per partner and mode, and shows usage in /partners/me', async () => {
    const p = await createPartner(t, { plan: 'growth' });
    await p.http.get('/api/courses');
    await p.http.get('/api/courses');
    const me = await p.http.get('/api/partners/me');
    expect(me.body.data.usage).toEqual({ month: new Date().toISOString().slice(0, 7), calls: 3, limit: 50_000, remaining: 49_997 });
    const live = await createKey(t, p.partnerId, 'live');
    expect((await live.http.get('/api/partners/me')).body.data.usage.calls).toBe(1);
  });
});

describe('rate limit', () => {
  it('sends RateLimit headers and answers 429 rate_limited with Retry-After past the plan rate', async () => {
    const p = await createPartner(t, { plan: 'starter' });
    const results = await Promise.all(Array.from({ length: 12 }, () => p.http.get('/api/courses')));
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok.length).toBeGreaterThanOrEqual(5);
    expect(ok.length).toBeLessThanOrEqual(10);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0].body.error.code).toBe('rate_limited');
    expect(Number(limited[0].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(ok[0].headers.get('ratelimit-policy')).toBe('"per-key";q=5;w=1');
    expect(ok[0].headers.get('ratelimit')).toMatch(/^"per-key";r=\d+;t=1$/);
    // Refused calls do not count against the quota.
    expect(await t.app.get(UsageLimiter).used(p.partnerId, 'test')).toBe(ok.length);
  });
});

describe('origin allowlist', () => {
  it('allows no Origin, an allowed origin and the service origin; refuses others with 403 origin_not_allowed', async () => {
    const p = await createPartner(t);
    await admin.http.patch(`/api/admin/partners/${p.partnerId}`, { allowed_origins: ['https://app.partner.example'] });
    expect((await p.http.get('/api/courses')).status).toBe(200);
    expect((await p.http.get('/api/courses', { headers: { Origin: 'https://app.partner.example' } })).status).toBe(200);
    expect((await p.http.get('/api/courses', { headers: { Origin: 'http://localhost:3999' } })).status).toBe(200);
    expectError(await p.http.get('/api/courses', { headers: { Origin: 'https://evil.example' } }), 403, 'origin_not_allowed');
  });

  it('answers CORS preflights for allowed origins only', async () => {
    const p = await createPartner(t);
    await admin.http.patch(`/api/admin/partners/${p.partnerId}`, { allowed_origins: ['https://cors.partner.example'] });
    const preflight = (origin: string) =>
      fetch(`${t.baseUrl}/api/courses`, {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-api-key' },
      });
    const ok = await preflight('https://cors.partner.example');
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://cors.partner.example');
    expect(ok.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-api-key');
    const refused = await preflight('https://evil.example');
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('validates allowed origins', async () => {
    const p = await createPartner(t);
    const res = await admin.http.patch(`/api/admin/partners/${p.partnerId}`, { allowed_origins: ['https://ok.example/path'] });
    expectError(res, 400, 'validation_failed');
  });
});

describe('revocation across instances', () => {
  it('takes effect on another instance within 5 seconds', async () => {
    const other = await startApp();
    try {
      const p = await createPartner(t);
      const onOther = other.http.withKey(p.key);
      expect((await onOther.get('/api/courses')).status).toBe(200); // now cached on the other instance
      await admin.http.post(`/api/admin/keys/${p.keyId}/revoke`);
      const started = Date.now();
      let status = 200;
      while (status === 200 && Date.now() - started < 5000) {
        status = (await onOther.get('/api/courses')).status;
        if (status === 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe(401);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await other.close();
    }
  });
});

describe('onboarding', () => {
  it('registers a partner whose test key works at once', async () => {
    const res = await t.http.post(
      '/api/partners/register',
      { name: 'Acme Learning', email: 'dev@acme.example', website: 'https://acme.example' },
      { headers: { 'X-Forwarded-For': unique() } },
    );
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      partner: { id: expect.any(Number), name: 'Acme Learning', email: 'dev@acme.example', plan: 'starter', status: 'active' },
      api_key: {
        id: expect.stringMatching(/^key_/),
        key: expect.stringMatching(/^eck_test_[0-9A-Za-z]{38}$/),
        mode: 'test',
        key_prefix: res.body.data.api_key.key.slice(0, 14),
        created_at: expect.any(String),
      },
    });
    const me = await t.http.get('/api/partners/me', { key: res.body.data.api_key.key });
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ id: res.body.data.partner.id, plan: 'starter', mode: 'test', allowed_origins: [] });
  });

  it('limits registrations per client IP and answers 429 rate_limited with Retry-After', async () => {
    // Its own Redis prefix: the counter starts at zero whatever other files registered from 127.0.0.1 this hour.
    const limited = await startApp({ REGISTRATION_LIMIT_PER_HOUR: '5', REDIS_PREFIX: `${process.env.REDIS_PREFIX}-reg-${unique()}` });
    try {
      const statuses: number[] = [];
      let res = await limited.http.post('/api/partners/register', { name: 'Loop', email: `${unique('loop')}@example.com` });
      statuses.push(res.status);
      for (let i = 0; i < 6 && res.status === 201; i++) {
        res = await limited.http.post('/api/partners/register', { name: 'Loop', email: `${unique('loop')}@example.com` });
        statuses.push(res.status);
      }
      expect(statuses).toEqual([201, 201, 201, 201, 201, 429]);
      expectError(res, 429, 'rate_limited');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });

  it('validates registration', async () => {
    const res = await t.http.post('/api/partners/register', { name: '', email: 'not-an-email', extra: 1 });
    expectError(res, 400, 'validation_failed');
    expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['email', 'extra', 'name']);
  });

  it('goes from production access request to approval to a working live key', async () => {
    const p = await createPartner(t, { plan: 'growth' });
    const requested = await p.http.post('/api/partners/me/production-access', { use_case: 'We embed courses in our HR onboarding product.' });
    expect(requested.status).toBe(202);
    expect(requested.body.data.request).toEqual({ id: expect.stringMatching(/^par_/), status: 'pending', created_at: expect.any(String) });
    expectError(
      await p.http.post('/api/partners/me/production-access', { use_case: 'Asking a second time, please.' }),
      409,
      'production_access_already_requested',
    );

    const pending = await admin.http.get('/api/admin/production-access?status=pending&limit=100');
    expect(pending.body.data.requests.map((r: { id: string }) => r.id)).toContain(requested.body.data.request.id);

    const approved = await admin.http.post(`/api/admin/production-access/${requested.body.data.request.id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body.data.request.status).toBe('approved');
    const liveKey = approved.body.data.api_key.key;
    expect(liveKey).toMatch(/^eck_live_/);
    const me = await t.http.get('/api/partners/me', { key: liveKey });
    expect(me.body.data).toMatchObject({ id: p.partnerId, mode: 'live' });
    expectError(
      await admin.http.post(`/api/admin/production-access/${requested.body.data.request.id}/reject`, { reason: 'late' }),
      409,
      'request_already_reviewed',
    );
  });

  it('rejects a production access request with a reason', async () => {
    const p = await createPartner(t);
    const requested = await p.http.post('/api/partners/me/production-access', { use_case: 'Testing the rejection path here.' });
    const rejected = await admin.http.post(`/api/admin/production-access/${requested.body.data.request.id}/reject`, { reason: 'Tell us more.' });
    expect(rejected.body.data.request).toMatchObject({ status: 'rejected', reason: 'Tell us more.' });
  });

  it('lets an admin issue a live key for a partner', async () => {
    const p = await createPartner(t);
    const res = await admin.http.post(`/api/admin/partners/${p.partnerId}/keys`, { mode: 'live' });
    expect(res.status).toBe(201);
    expect((await t.http.get('/api/partners/me', { key: res.body.data.key })).body.data.mode).toBe('live');
    expectError(await admin.http.post('/api/admin/partners/999999/keys', { mode: 'live' }), 404, 'partner_not_found');
  });
});

describe('secrets in logs', () => {
  it('never writes an API key to the logs', async () => {
    const p = await createPartner(t);
    await p.http.get('/api/courses');
    await p.http.get('/api/nope');
    const last = `req-${unique('logs')}`;
    await t.http.get('/api/courses', { key: p.key.slice(0, -1) + 'x', headers: { 'X-Request-Id': last } });
    // Lines are written in order: once the last request's line is there, so are the others.
    await waitFor(() => logs.includes(last), 5000, 'the last request logged');
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).toContain('/api/courses');
    expect(logs).not.toContain(p.key);
    expect(logs).not.toContain(p.key.slice(9, 41));
  });
});
