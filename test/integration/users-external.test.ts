import { startApp, TestApp } from '../support/app';
import { createKey, createPartner, CreatedPartner, unique } from '../support/factories';
import { eventsOf } from './enrollment.helpers';

let t: TestApp;
let p: CreatedPartner;
beforeAll(async () => {
  t = await startApp();
  p = await createPartner(t, { plan: 'growth' });
});
afterAll(() => t.close());

const path = (ext: string) => `/api/users/external/${encodeURIComponent(ext)}`;
const registeredEvents = async (partnerId: number, ext: string) =>
  (await eventsOf(t.db, partnerId, 'user.registered')).filter((e) => e.payload.external_user_id === ext);

describe('GET /api/users/external/{external_user_id}', () => {
  it('finds the learner by the partner’s own id, URL-decoded', async () => {
    const ext = `${unique('acme')}/team a+b?#%é`;
    const created = (await p.http.post('/api/users', { external_user_id: ext, name: 'Grace Hopper', email: 'grace@example.com' })).body.data;
    const res = await p.http.get(path(ext));
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(created);
  });

  it('answers 404 user_not_found for an unknown id, and for another partner’s or mode’s learner', async () => {
    const ext = unique('ext');
    expect((await p.http.put(path(ext), { name: 'Ada', email: 'ada@example.com' })).status).toBe(201);
    const other = await createPartner(t, { plan: 'growth' });
    const live = await createKey(t, p.partnerId, 'live');
    for (const [api, id] of [
      [p.http, unique('ghost')],
      [other.http, ext],
      [live.http, ext],
    ] as const) {
      const res = await api.get(path(id));
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('user_not_found');
    }
  });

  it('refuses an id longer than 128 characters with 400', async () => {
    const res = await p.http.get(path('x'.repeat(129)));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_failed', details: [{ field: 'external_user_id', message: expect.any(String) }] });
  });

  it('belongs to the users plan group (starter keys are refused)', async () => {
    const starter = await createPartner(t, { plan: 'starter' });
    expect((await starter.http.get(path('x'))).body.error.code).toBe('endpoint_not_in_plan');
    expect((await starter.http.put(path('x'), { name: 'A', email: 'a@example.com' })).body.error.code).toBe('endpoint_not_in_plan');
  });
});

describe('PUT /api/users/external/{external_user_id}', () => {
  it('creates the learner (201) and emits user.registered once', async () => {
    const ext = `${unique('acme')}/π`;
    const res = await p.http.put(path(ext), { name: 'Katherine Johnson', email: 'kj@example.com' });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(Number),
      external_user_id: ext,
      name: 'Katherine Johnson',
      email: 'kj@example.com',
      created_at: expect.stringMatching(/Z$/),
    });
    const events = await registeredEvents(p.partnerId, ext);
    expect(events.map((e) => e.payload)).toEqual([
      { user_id: res.body.data.id, external_user_id: ext, name: 'Katherine Johnson', email: 'kj@example.com', registered_at: res.body.data.created_at },
    ]);
  });

  it('updates name and email (200, no event), and answers 200 unchanged on a repeat', async () => {
    const ext = unique('ext');
    const created = (await p.http.put(path(ext), { name: 'Old Name', email: 'old@example.com' })).body.data;
    const updated = await p.http.put(path(ext), { name: '  New Name ', email: 'new@example.com' });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toEqual({ ...created, name: 'New Name', email: 'new@example.com' });
    const again = await p.http.put(path(ext), { name: 'New Name', email: 'new@example.com' });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(updated.body.data);
    expect((await p.http.get(`/api/users/${created.id}`)).body.data).toEqual(updated.body.data);
    expect(await registeredEvents(p.partnerId, ext)).toHaveLength(1);
  });

  it('updates a learner created with POST /api/users', async () => {
    const ext = unique('ext');
    const created = (await p.http.post('/api/users', { external_user_id: ext, name: 'First', email: 'first@example.com' })).body.data;
    const res = await p.http.put(path(ext), { name: 'Second', email: 'first@example.com' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ ...created, name: 'Second' });
  });

  it('ends concurrent PUTs of one id with one learner and one user.registered', async () => {
    const ext = unique('race');
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => p.http.put(path(ext), { name: `Racer ${i % 2}`, email: 'race@example.com' })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1);
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM users WHERE partner_id = $1 AND external_user_id = $2`, [p.partnerId, ext]);
    expect(n).toBe(1);
    expect(await registeredEvents(p.partnerId, ext)).toHaveLength(1);
  });

  it('keeps one learner per partner and mode: the same id elsewhere is another learner', async () => {
    const ext = unique('ext');
    const mine = (await p.http.put(path(ext), { name: 'Mine', email: 'mine@example.com' })).body.data;
    const other = await createPartner(t, { plan: 'growth' });
    const live = await createKey(t, p.partnerId, 'live');
    for (const api of [other.http, live.http]) {
      const res = await api.put(path(ext), { name: 'Theirs', email: 'theirs@example.com' });
      expect(res.status).toBe(201);
      expect(res.body.data.id).not.toBe(mine.id);
    }
    expect((await p.http.get(path(ext))).body.data).toEqual(mine);
  });

  it('validates the body and the id (400 with fields), writing nothing', async () => {
    const ext = unique('ext');
    const bad = await p.http.put(path(ext), { name: '', email: 'nope', external_user_id: 'other' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field)).toEqual(expect.arrayContaining(['name', 'email', 'external_user_id']));
    expect((await p.http.put(path('y'.repeat(129)), { name: 'A', email: 'a@example.com' })).status).toBe(400);
    expect((await p.http.get(path(ext))).status).toBe(404);
  });
});
