import { createHash } from 'node:crypto';
import { startApp, TestApp } from '../support/app';
import { createKey, createPartner, CreatedPartner, unique } from '../support/factories';
import { createUser, createWebinar, hostTokenOf, inMinutes, liveWebinar, webinarEvents } from './webinar.helpers';

let t: TestApp;
let p: CreatedPartner;
beforeAll(async () => {
  t = await startApp();
  p = await createPartner(t, { plan: 'enterprise' });
});
afterAll(() => t.close());

const base = 'http://localhost:3999';

describe('POST /api/webinars/create', () => {
  it('returns 201 with the spec fields, the service page URLs and a hashed host token', async () => {
    const host = await createUser(p);
    const res = await p.http.post('/api/webinars/create', { title: '  Office hours  ', host_id: host.id, scheduled_at: '2030-06-01T17:00:00+02:00' });
    expect(res.status).toBe(201);
    const w = res.body.data;
    expect(w.webinar_id).toMatch(/^wbn_[0-9A-Za-z]{22}$/);
    expect(w).toMatchObject({
      title: 'Office hours',
      scheduled_at: '2030-06-01T15:00:00.000Z',
      status: 'scheduled',
      duration_minutes: 60,
      max_attendees: null,
      is_public: false,
      host_id: host.id,
      attendee_join_url: `${base}/live/join?wbn=${w.webinar_id}`,
      embed_url: `${base}/live/embed/${w.webinar_id}`,
    });
    expect(w.host_join_url).toMatch(new RegExp(`^${base}/live/join\\?wbn=${w.webinar_id}&t=[0-9A-Za-z]{32,}$`));
    const [row] = await t.db.query('SELECT host_token_hash FROM webinars WHERE id = $1', [w.webinar_id]);
    expect(row.host_token_hash).toBe(createHash('sha256').update(hostTokenOf(w)).digest('hex'));
  });

  it('stores the optional fields', async () => {
    const w = await createWebinar(p, { duration_minutes: 1440, max_attendees: 1, is_public: true });
    expect(w).toMatchObject({ duration_minutes: 1440, max_attendees: 1, is_public: true });
  });

  it('accepts a start time up to five minutes in the past', async () => {
    const w = await createWebinar(p, { scheduled_at: inMinutes(-4) });
    expect(w.status).toBe('scheduled');
  });

  const invalid: Array<[string, Record<string, unknown>]> = [
    ['title', { title: undefined }],
    ['title', { title: '   ' }],
    ['title', { title: 'x'.repeat(201) }],
    ['title', { title: 42 }],
    ['host_id', { host_id: 0 }],
    ['host_id', { host_id: '5' }],
    ['host_id', { host_id: 1.5 }],
    ['scheduled_at', { scheduled_at: undefined }],
    ['scheduled_at', { scheduled_at: '2030-06-01T15:00:00' }],
    ['scheduled_at', { scheduled_at: '2030-06-01' }],
    ['scheduled_at', { scheduled_at: '2030-02-30T10:00:00Z' }],
    ['scheduled_at', { scheduled_at: 'tomorrow' }],
    ['scheduled_at', { scheduled_at: 1893456000000 }],
    ['scheduled_at', { scheduled_at: new Date(Date.now() - 6 * 60_000).toISOString() }],
    ['duration_minutes', { duration_minutes: 0 }],
    ['duration_minutes', { duration_minutes: 1441 }],
    ['duration_minutes', { duration_minutes: '60' }],
    ['duration_minutes', { duration_minutes: 30.5 }],
    ['max_attendees', { max_attendees: 0 }],
    ['max_attendees', { max_attendees: -3 }],
    ['max_attendees', { max_attendees: '10' }],
    ['is_public', { is_public: 'true' }],
    ['is_public', { is_public: 1 }],
    ['room', { room: 'A' }],
  ];
  it.each(invalid)('rejects an invalid %s with 400 validation_failed naming the field', async (field, patch) => {
    const host = await createUser(p);
    const body = { title: 'Valid', host_id: host.id, scheduled_at: inMinutes(60), ...patch };
    const res = await p.http.post('/api/webinars/create', body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('answers 404 user_not_found for a host that is not a user of the caller', async () => {
    const other = await createPartner(t);
    const stranger = await createUser(other);
    for (const host_id of [stranger.id, 2_000_000_000]) {
      const res = await p.http.post('/api/webinars/create', { title: 'x', host_id, scheduled_at: inMinutes(10) });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('user_not_found');
    }
  });

  it('is not in the starter plan', async () => {
    const starter = await createPartner(t, { plan: 'starter' });
    const res = await starter.http.post('/api/webinars/create', { title: 'x', host_id: 1, scheduled_at: inMinutes(10) });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('endpoint_not_in_plan');
  });
});

describe('plan room limit', () => {
  it('allows growth 5 rooms open at once, exactly, under concurrency', async () => {
    const growth = await createPartner(t, { plan: 'growth' });
    const host = await createUser(growth);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => growth.http.post('/api/webinars/create', { title: 'Room', host_id: host.id, scheduled_at: inMinutes(30) })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused.map((r) => [r.status, r.body.error.code])).toEqual(Array(3).fill([403, 'plan_limit_exceeded']));
  });

  it('frees a room when a webinar ends, and counts rooms per mode', async () => {
    const growth = await createPartner(t, { plan: 'growth' });
    const host = await createUser(growth);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createWebinar(growth, { host_id: host.id })).webinar_id);
    const full = await growth.http.post('/api/webinars/create', { title: 'x', host_id: host.id, scheduled_at: inMinutes(30) });
    expect(full.status).toBe(403);
    const live = await createKey(t, growth.partnerId, 'live');
    await createWebinar(live);
    await growth.http.post(`/api/webinars/${ids[0]}/start`);
    await growth.http.post(`/api/webinars/${ids[0]}/end`);
    expect((await growth.http.post('/api/webinars/create', { title: 'x', host_id: host.id, scheduled_at: inMinutes(30) })).status).toBe(201);
  });
});

describe('lifecycle', () => {
  it('starts a scheduled webinar and records webinar.started', async () => {
    const w = await createWebinar(p);
    const res = await p.http.post(`/api/webinars/${w.webinar_id}/start`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ webinar_id: w.webinar_id, status: 'live', ended_at: null });
    const events = await webinarEvents(t, w.webinar_id, 'webinar.started');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ partner_id: p.partnerId, mode: 'test' });
    expect(events[0].payload).toEqual({
      webinar_id: w.webinar_id,
      title: w.title,
      started_at: res.body.data.started_at,
      attendee_join_url: w.attendee_join_url,
      embed_url: w.embed_url,
    });
  });

  it('refuses to start twice (409 webinar_already_live) and after the end (409 webinar_ended)', async () => {
    const w = await liveWebinar(p);
    const again = await p.http.post(`/api/webinars/${w.webinar_id}/start`);
    expect([again.status, again.body.error.code]).toEqual([409, 'webinar_already_live']);
    await p.http.post(`/api/webinars/${w.webinar_id}/end`);
    const afterEnd = await p.http.post(`/api/webinars/${w.webinar_id}/start`);
    expect([afterEnd.status, afterEnd.body.error.code]).toEqual([409, 'webinar_ended']);
    expect(await webinarEvents(t, w.webinar_id, 'webinar.started')).toHaveLength(1);
  });

  it('lets exactly one of many parallel starts win', async () => {
    const w = await createWebinar(p);
    const results = await Promise.all(Array.from({ length: 10 }, () => p.http.post(`/api/webinars/${w.webinar_id}/start`)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(await webinarEvents(t, w.webinar_id, 'webinar.started')).toHaveLength(1);
  });

  it('refuses to end a scheduled webinar (409 webinar_not_live) or an ended one (409 webinar_ended)', async () => {
    const w = await createWebinar(p);
    const early = await p.http.post(`/api/webinars/${w.webinar_id}/end`);
    expect([early.status, early.body.error.code]).toEqual([409, 'webinar_not_live']);
    await p.http.post(`/api/webinars/${w.webinar_id}/start`);
    expect((await p.http.post(`/api/webinars/${w.webinar_id}/end`)).status).toBe(200);
    const twice = await p.http.post(`/api/webinars/${w.webinar_id}/end`);
    expect([twice.status, twice.body.error.code]).toEqual([409, 'webinar_ended']);
    expect(await webinarEvents(t, w.webinar_id, 'webinar.ended')).toHaveLength(1);
  });

  it('ends with the actual duration and the distinct attendance count, and records webinar.ended', async () => {
    const w = await liveWebinar(p);
    const [a, b, c] = [await createUser(p), await createUser(p), await createUser(p)];
    await p.http.post(`/api/webinars/${w.webinar_id}/join`, { user_id: a.id });
    await p.http.post(`/api/webinars/${w.webinar_id}/join`, { user_id: a.id });
    await p.http.post(`/api/webinars/${w.webinar_id}/join`, { external_user_id: b.external_user_id });
    await p.http.post(`/api/webinars/${w.webinar_id}/register`, { user_id: c.id });
    await t.db.query(`UPDATE webinars SET started_at = now() - interval '42 minutes 20 seconds' WHERE id = $1`, [w.webinar_id]);
    const res = await p.http.post(`/api/webinars/${w.webinar_id}/end`);
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data).toEqual({
      webinar_id: w.webinar_id,
      status: 'ended',
      started_at: expect.any(String),
      ended_at: expect.any(String),
      duration_minutes: 42,
      attendance_count: 2,
    });
    const [event] = await webinarEvents(t, w.webinar_id, 'webinar.ended');
    expect(event.payload).toEqual({
      webinar_id: w.webinar_id,
      title: w.title,
      started_at: data.started_at,
      ended_at: data.ended_at,
      duration_minutes: 42,
      attendance_count: 2,
      peak_concurrent_attendees: 0,
      total_watch_minutes: 0,
    });
    const got = await p.http.get(`/api/webinars/${w.webinar_id}`);
    expect(got.body.data).toMatchObject({ status: 'ended', started_at: data.started_at, ended_at: data.ended_at });
  });
});

describe('register and join', () => {
  it('registers with a personal join URL; registering again is 200 with the same link and no new seat', async () => {
    const w = await createWebinar(p, { max_attendees: 1 });
    const u = await createUser(p);
    const first = await p.http.post(`/api/webinars/${w.webinar_id}/register`, { user_id: u.id });
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({
      webinar_id: w.webinar_id,
      user_id: u.id,
      external_user_id: u.external_user_id,
      status: 'registered',
      joined_at: null,
    });
    expect(first.body.data.join_url).toMatch(new RegExp(`^${base}/live/join\\?wbn=${w.webinar_id}&a=[0-9A-Za-z_-]{32,}$`));
    const again = await p.http.post(`/api/webinars/${w.webinar_id}/register`, { external_user_id: u.external_user_id });
    expect(again.status).toBe(200);
    expect(again.body.data.join_url).toBe(first.body.data.join_url);
    expect((await p.http.get(`/api/webinars/${w.webinar_id}`)).body.data.attendee_count).toBe(1);
  });

  it('refuses to join before the webinar is live (409 webinar_not_live) and after it ended (409 webinar_ended)', async () => {
    const w = await createWebinar(p);
    const u = await createUser(p);
    const early = await p.http.post(`/api/webinars/${w.webinar_id}/join`, { user_id: u.id });
    expect([early.status, early.body.error.code]).toEqual([409, 'webinar_not_live']);
    expect((await p.http.get(`/api/webinars/${w.webinar_id}/attendees`)).body.data.total).toBe(0);
    await p.http.post(`/api/webinars/${w.webinar_id}/start`);
    await p.http.post(`/api/webinars/${w.webinar_id}/end`);
    for (const op of ['join', 'register']) {
      const late = await p.http.post(`/api/webinars/${w.webinar_id}/${op}`, { user_id: u.id });
      expect([late.status, late.body.error.code]).toEqual([409, 'webinar_ended']);
    }
  });

  it('emits webinar.joined on the first join only, without taking another seat on a re-join', async () => {
    const w = await liveWebinar(p);
    const u = await createUser(p, 'Grace Hopper');
    const first = await p.http.post(`/api/webinars/${w.webinar_id}/join`, { user_id: u.id });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ status: 'joined', user_id: u.id, name: 'Grace Hopper', email: u.email });
    const second = await p.http.post(`/api/webinars/${w.webinar_id}/join`, { user_id: u.id });
    expect(second.status).toBe(200);
    expect(second.body.data.joined_at).toBe(first.body.data.joined_at);
    const events = await webinarEvents(t, w.webinar_id, 'webinar.joined');
    expect(events).toHaveLength(1);
    expect(events[0].payload).toEqual({
      webinar_id: w.webinar_id,
      user_id: u.id,
      external_user_id: u.external_user_id,
      name: 'Grace Hopper',
      email: u.email,
      joined_at: first.body.data.joined_at,
    });
    expect((await p.http.get(`/api/webinars/${w.webinar_id}`)).body.data.attendee_count).toBe(1);
  });

  it('validates the user reference and answers 404 for unknown users', async () => {
    const w = await liveWebinar(p);
    const none = await p.http.post(`/api/webinars/${w.webinar_id}/join`, {});
    expect([none.status, none.body.error.code]).toEqual([400, 'validation_failed']);
    const bad = await p.http.post(`/api/webinars/${w.webinar_id}/join`, { user_id: 'one' });
    expect(bad.status).toBe(400);
    const unknown = await p.http.post(`/api/webinars/${w.webinar_id}/register`, { external_user_id: unique('nobody') });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'user_not_found']);
  });

  it('holds max_attendees under concurrency: 50 parallel joins for 10 seats → exactly 10', async () => {
    const w = await liveWebinar(p, { max_attendees: 10 });
    const users = await Promise.all(Array.from({ length: 50 }, () => createUser(p)));
    const results = await Promise.all(users.map((u) => p.http.post(`/api/webinars/${w.webinar_id}/join`, { user_id: u.id })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    expect(results.filter((r) => r.status === 409 && r.body.error.code === 'webinar_full')).toHaveLength(40);
    const list = await p.http.get(`/api/webinars/${w.webinar_id}/attendees?limit=100`);
    expect(list.body.data.total).toBe(10);
    expect(await webinarEvents(t, w.webinar_id, 'webinar.joined')).toHaveLength(10);
  });

  it('counts registrations against max_attendees, while a registered user can still join', async () => {
    const w = await createWebinar(p, { max_attendees: 1 });
    const [a, b] = [await createUser(p), await createUser(p)];
    expect((await p.http.post(`/api/webinars/${w.webinar_id}/register`, { user_id: a.id })).status).toBe(201);
    const full = await p.http.post(`/api/webinars/${w.webinar_id}/register`, { user_id: b.id });
    expect([full.status, full.body.error.code]).toEqual([409, 'webinar_full']);
    await p.http.post(`/api/webinars/${w.webinar_id}/start`);
    expect((await p.http.post(`/api/webinars/${w.webinar_id}/join`, { user_id: b.id })).body.error.code).toBe('webinar_full');
    expect((await p.http.post(`/api/webinars/${w.webinar_id}/join`, { user_id: a.id })).status).toBe(200);
  });

  it('lists attendees with their user fields and status', async () => {
    const w = await liveWebinar(p);
    const [a, b] = [await createUser(p, 'Alan Turing'), await createUser(p, 'Barbara Liskov')];
    await p.http.post(`/api/webinars/${w.webinar_id}/register`, { user_id: a.id });
    await p.http.post(`/api/webinars/${w.webinar_id}/join`, { user_id: b.id });
    const res = await p.http.get(`/api/webinars/${w.webinar_id}/attendees`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ webinar_id: w.webinar_id, total: 2 });
    expect(res.body.data.attendees).toEqual([
      {
        user_id: a.id,
        external_user_id: a.external_user_id,
        name: 'Alan Turing',
        email: a.email,
        status: 'registered',
        registered_at: expect.any(String),
        joined_at: null,
        watched_seconds: 0,
        connected: false,
      },
      {
        user_id: b.id,
        external_user_id: b.external_user_id,
        name: 'Barbara Liskov',
        email: b.email,
        status: 'joined',
        registered_at: expect.any(String),
        joined_at: expect.any(String),
        watched_seconds: 0,
        connected: false,
      },
    ]);
  });
});

describe('reads and tenancy', () => {
  it("hides another partner's and the other mode's webinars behind 404 webinar_not_found", async () => {
    const w = await liveWebinar(p);
    const other = await createPartner(t);
    const otherUser = await createUser(other);
    const liveKey = await createKey(t, p.partnerId, 'live');
    for (const caller of [other, liveKey]) {
      const calls = [
        caller.http.get(`/api/webinars/${w.webinar_id}`),
        caller.http.get(`/api/webinars/${w.webinar_id}/attendees`),
        caller.http.post(`/api/webinars/${w.webinar_id}/start`),
        caller.http.post(`/api/webinars/${w.webinar_id}/join`, { user_id: otherUser.id }),
        caller.http.post(`/api/webinars/${w.webinar_id}/register`, { user_id: otherUser.id }),
        caller.http.post(`/api/webinars/${w.webinar_id}/end`),
      ];
      for (const res of await Promise.all(calls)) expect([res.status, res.body.error?.code]).toEqual([404, 'webinar_not_found']);
    }
    expect((await p.http.get(`/api/webinars/${w.webinar_id}`)).body.data.status).toBe('live');
    expect((await other.http.get('/api/webinars')).body.data.webinars.map((x: any) => x.webinar_id)).not.toContain(w.webinar_id);
  });

  it("refuses to seat another partner's user (404 user_not_found)", async () => {
    const w = await liveWebinar(p);
    const stranger = await createUser(await createPartner(t));
    const res = await p.http.post(`/api/webinars/${w.webinar_id}/join`, { user_id: stranger.id });
    expect([res.status, res.body.error.code]).toEqual([404, 'user_not_found']);
  });

  it('answers 404 for malformed ids', async () => {
    for (const id of ['nope', 'wbn_short', `wbn_${'a'.repeat(22)}`]) {
      const res = await p.http.get(`/api/webinars/${id}`);
      expect([res.status, res.body.error.code]).toEqual([404, 'webinar_not_found']);
    }
  });

  it("lists the caller's webinars, filtered by status and paginated", async () => {
    const me = await createPartner(t);
    const host = await createUser(me);
    const a = await createWebinar(me, { host_id: host.id, scheduled_at: inMinutes(10) });
    const b = await createWebinar(me, { host_id: host.id, scheduled_at: inMinutes(20) });
    await me.http.post(`/api/webinars/${a.webinar_id}/start`);
    const all = await me.http.get('/api/webinars?limit=1');
    expect(all.body.data).toMatchObject({ total: 2, page: 1, pages: 2 });
    expect(all.body.data.webinars[0].webinar_id).toBe(b.webinar_id);
    expect(all.body.data.webinars[0].host_join_url).toBeUndefined();
    const live = await me.http.get('/api/webinars?status=live');
    expect(live.body.data.webinars.map((x: any) => x.webinar_id)).toEqual([a.webinar_id]);
    const bad = await me.http.get('/api/webinars?status=paused');
    expect([bad.status, bad.body.error.code]).toEqual([400, 'validation_failed']);
  });

  it('lists upcoming and live public webinars without a key, with safe fields only', async () => {
    const pub = await createWebinar(p, { is_public: true, scheduled_at: inMinutes(5) });
    const live = await liveWebinar(p, { is_public: true });
    const hidden = await createWebinar(p, { is_public: false });
    const ended = await liveWebinar(p, { is_public: true });
    await p.http.post(`/api/webinars/${ended.webinar_id}/end`);
    const res = await t.http.get('/api/webinars/public?mode=test&limit=100');
    expect(res.status).toBe(200);
    const ids = res.body.data.webinars.map((x: any) => x.webinar_id);
    expect(ids).toEqual(expect.arrayContaining([pub.webinar_id, live.webinar_id]));
    expect(ids).not.toContain(hidden.webinar_id);
    expect(ids).not.toContain(ended.webinar_id);
    const item = res.body.data.webinars.find((x: any) => x.webinar_id === pub.webinar_id);
    expect(Object.keys(item).sort()).toEqual([
      'attendee_join_url',
      'duration_minutes',
      'embed_url',
      'scheduled_at',
      'started_at',
      'status',
      'title',
      'webinar_id',
    ]);
    expect(res.text).not.toContain('&t=');
    const liveMode = await t.http.get('/api/webinars/public?limit=100');
    expect(liveMode.body.data.webinars.map((x: any) => x.webinar_id)).not.toContain(pub.webinar_id);
  });
});
