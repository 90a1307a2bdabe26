import { SecretBox } from '../../src/webhooks/secret-box';
import { startApp, TestApp } from '../support/app';
import { createKey, createPartner, CreatedPartner } from '../support/factories';

let t: TestApp;
let p: CreatedPartner;
beforeAll(async () => {
  t = await startApp();
  p = await createPartner(t, { plan: 'growth' });
});
afterAll(() => t.close());

const SECRET = 'a-very-secret-signing-key';
const body = (over: Record<string, unknown> = {}) => ({ url: 'https://hooks.example.com/in', events: ['course.enrolled'], secret: SECRET, ...over });

describe('webhook subscriptions (contract 11)', () => {
  it('registers a subscription: 201 with id, url, events, status and created_at, never the secret', async () => {
    const res = await p.http.post('/api/connect/webhooks', body({ events: ['course.enrolled', 'user.registered'] }));
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^whk_[0-9A-Za-z]{22}$/),
      url: 'https://hooks.example.com/in',
      events: ['course.enrolled', 'user.registered'],
      status: 'active',
      created_at: expect.stringMatching(/Z$/),
    });
    expect(res.text).not.toContain(SECRET);
  });

  it('stores the secret encrypted, not in plain text', async () => {
    const res = await p.http.post('/api/connect/webhooks', body());
    const [row] = await t.db.query(`SELECT secret_encrypted FROM webhook_subscriptions WHERE id = $1`, [res.body.data.id]);
    expect(row.secret_encrypted).not.toContain(SECRET);
    expect(t.app.get(SecretBox).open(row.secret_encrypted)).toBe(SECRET);
  });

  it('lists, reads, updates and deletes within the partner and mode', async () => {
    const q = await createPartner(t, { plan: 'growth' });
    const a = (await q.http.post('/api/connect/webhooks', body())).body.data;
    const b = (await q.http.post('/api/connect/webhooks', body({ url: 'https://hooks.example.com/b' }))).body.data;
    const list = await q.http.get('/api/connect/webhooks?limit=1&page=2');
    expect(list.status).toBe(200);
    expect(list.body.data).toMatchObject({ total: 2, page: 2, pages: 2 });
    expect(list.body.data.webhooks).toHaveLength(1);
    expect(list.body.data.webhooks[0]).not.toHaveProperty('secret');

    expect((await q.http.get(`/api/connect/webhooks/${a.id}`)).body.data).toMatchObject({ id: a.id, status: 'active' });
    const patched = await q.http.patch(`/api/connect/webhooks/${a.id}`, { events: ['webinar.ended'], status: 'disabled' });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ events: ['webinar.ended'], status: 'disabled' });

    expect((await q.http.delete(`/api/connect/webhooks/${b.id}`)).body.data).toEqual({ id: b.id, deleted: true });
    expect((await q.http.get(`/api/connect/webhooks/${b.id}`)).status).toBe(404);
  });

  it("answers 404 webhook_not_found for another partner's or the other mode's subscription", async () => {
    const mine = (await p.http.post('/api/connect/webhooks', body())).body.data;
    const other = await createPartner(t);
    const live = await createKey(t, p.partnerId, 'live');
    for (const client of [other.http, live.http]) {
      for (const res of [
        await client.get(`/api/connect/webhooks/${mine.id}`),
        await client.patch(`/api/connect/webhooks/${mine.id}`, { status: 'disabled' }),
        await client.delete(`/api/connect/webhooks/${mine.id}`),
        await client.get(`/api/connect/webhooks/${mine.id}/deliveries`),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('webhook_not_found');
      }
    }
    expect((await live.http.get('/api/connect/webhooks')).body.data.webhooks.map((w: { id: string }) => w.id)).not.toContain(mine.id);
  });

  it.each([
    ['url', body({ url: 'not a url' })],
    ['url', body({ url: 'ftp://hooks.example.com/in' })],
    ['url', body({ url: `https://hooks.example.com/${'a'.repeat(2048)}` })],
    ['url', body({ url: 'https://user:pw@hooks.example.com/in' })],
    ['events', body({ events: [] })],
    ['events', body({ events: ['course.enrolled', 'course.enrolled'] })],
    ['events', body({ events: ['course.deleted'] })],
    ['events', body({ events: 'course.enrolled' })],
    ['secret', body({ secret: 'short' })],
    ['secret', body({ secret: 'x'.repeat(257) })],
    ['secret', body({ secret: undefined })],
    ['extra', body({ extra: 1 })],
  ])('rejects an invalid %s with 400 validation_failed', async (field, payload) => {
    const res = await p.http.post('/api/connect/webhooks', payload);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('requires https for live keys', async () => {
    const live = await createKey(t, p.partnerId, 'live');
    const res = await live.http.post('/api/connect/webhooks', body({ url: 'http://hooks.example.com/in' }));
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'url', message: expect.stringContaining('https') }]);
    expect((await live.http.post('/api/connect/webhooks', body())).status).toBe(201);
  });

  it('accepts all nine event types on growth', async () => {
    const all = [
      'course.enrolled',
      'course.completed',
      'course.progress',
      'certificate.issued',
      'webinar.started',
      'webinar.joined',
      'webinar.ended',
      'user.registered',
      'credits.purchased',
    ];
    const res = await p.http.post('/api/connect/webhooks', body({ events: all }));
    expect(res.status).toBe(201);
    expect(res.body.data.events).toEqual(all);
  });
});

describe('starter plan event-type limit', () => {
  it('allows 2 distinct event types across active subscriptions per mode, then 403 plan_limit_exceeded', async () => {
    const s = await createPartner(t, { plan: 'starter' });
    expect((await s.http.post('/api/connect/webhooks', body({ events: ['course.enrolled'] }))).status).toBe(201);
    expect((await s.http.post('/api/connect/webhooks', body({ events: ['course.enrolled', 'user.registered'] }))).status).toBe(201);
    const third = await s.http.post('/api/connect/webhooks', body({ events: ['webinar.ended'] }));
    expect(third.status).toBe(403);
    expect(third.body.error).toMatchObject({ code: 'plan_limit_exceeded', details: { limit: 2 } });
    // The other mode has its own allowance.
    const live = await createKey(t, s.partnerId, 'live');
    expect((await live.http.post('/api/connect/webhooks', body({ events: ['webinar.ended', 'webinar.joined'] }))).status).toBe(201);
  });

  it('counts the limit on update and re-enable, and not for disabled subscriptions', async () => {
    const s = await createPartner(t, { plan: 'starter' });
    const a = (await s.http.post('/api/connect/webhooks', body({ events: ['course.enrolled', 'user.registered'] }))).body.data;
    expect((await s.http.patch(`/api/connect/webhooks/${a.id}`, { events: ['course.enrolled', 'user.registered', 'webinar.ended'] })).status).toBe(403);
    await s.http.patch(`/api/connect/webhooks/${a.id}`, { status: 'disabled' });
    const b = await s.http.post('/api/connect/webhooks', body({ events: ['webinar.ended', 'webinar.joined'] }));
    expect(b.status).toBe(201);
    const reenable = await s.http.patch(`/api/connect/webhooks/${a.id}`, { status: 'active' });
    expect(reenable.status).toBe(403);
    expect(reenable.body.error.code).toBe('plan_limit_exceeded');
  });

  it('holds under concurrent registrations', async () => {
    const s = await createPartner(t, { plan: 'starter' });
    const types = ['course.enrolled', 'user.registered', 'webinar.ended', 'webinar.joined'];
    const results = await Promise.all(types.map((e) => s.http.post('/api/connect/webhooks', body({ events: [e] }))));
    expect(results.filter((r) => r.status === 201)).toHaveLength(2);
    expect(results.filter((r) => r.status === 403)).toHaveLength(2);
  });
});

describe('SSRF guard at registration (WEBHOOK_ALLOW_PRIVATE_TARGETS=false)', () => {
  let guarded: TestApp;
  let g: CreatedPartner;
  beforeAll(async () => {
    // No worker here: this app only registers; the shared queue stays with the other apps of the run.
    guarded = await startApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false', RUN_WORKER: 'false' });
    g = await createPartner(guarded, { plan: 'growth' });
  });
  afterAll(() => guarded.close());

  it.each([
    'http://127.0.0.1:8080/hook',
    'http://localhost/hook',
    'http://10.1.2.3/hook',
    'http://192.168.0.10/hook',
    'http://172.20.0.1/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[fd00:ec2::254]/hook',
    'http://[fe80::1]/hook',
    'http://0.0.0.0/hook',
    'http://2130706433/hook',
    'http://does-not-resolve.invalid/hook',
  ])('refuses %s with 400 on url', async (url) => {
    const res = await g.http.post('/api/connect/webhooks', body({ url }));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details[0].field).toBe('url');
  });

  it('refuses a private target on update too', async () => {
    const created = await g.http.post('/api/connect/webhooks', body({ url: 'http://93.184.215.14/hook' }));
    expect(created.status).toBe(201);
    const res = await g.http.patch(`/api/connect/webhooks/${created.body.data.id}`, { url: 'http://127.0.0.1/hook' });
    expect(res.status).toBe(400);
  });
});
