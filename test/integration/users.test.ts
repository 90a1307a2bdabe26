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

const newUser = () => {
  const ext = unique('ext');
  return { external_user_id: ext, name: 'Grace Hopper', email: `${ext}@example.com` };
};

describe('users', () => {
  it('creates a learner (201) with the contract shape', async () => {
    const body = newUser();
    const res = await p.http.post('/api/users', body);
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ id: expect.any(Number), ...body, created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) });
  });

  it('records user.registered with the exact payload', async () => {
    const body = newUser();
    const { data } = (await p.http.post('/api/users', body)).body;
    const events = (await eventsOf(t.db, p.partnerId, 'user.registered')).filter((e) => e.payload.user_id === data.id);
    expect(events).toHaveLength(1);
    expect(events[0].mode).toBe('test');
    expect(events[0].payload).toEqual({
      user_id: data.id,
      external_user_id: body.external_user_id,
      name: body.name,
      email: body.email,
      registered_at: data.created_at,
    });
  });

  it('reads a learner by id', async () => {
    const { data } = (await p.http.post('/api/users', newUser())).body;
    const res = await p.http.get(`/api/users/${data.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(data);
  });

  it('finds a learner by external_user_id in a paginated list', async () => {
    const body = newUser();
    const { data } = (await p.http.post('/api/users', body)).body;
    const res = await p.http.get(`/api/users?external_user_id=${body.external_user_id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ users: [data], total: 1, page: 1, pages: 1 });
    expect((await p.http.get(`/api/users?external_user_id=${unique('nobody')}`)).body.data).toEqual({ users: [], total: 0, page: 1, pages: 0 });
  });

  it('lists the caller’s learners with pagination', async () => {
    const other = await createPartner(t, { plan: 'growth' });
    for (let i = 0; i < 3; i++) await other.http.post('/api/users', newUser());
    const res = await other.http.get('/api/users?limit=2&page=2');
    expect(res.body.data).toMatchObject({ total: 3, page: 2, pages: 2 });
    expect(res.body.data.users).toHaveLength(1);
  });

  it('refuses a taken external_user_id with 409 and the existing user id', async () => {
    const body = newUser();
    const { data } = (await p.http.post('/api/users', body)).body;
    const res = await p.http.post('/api/users', { ...body, name: 'Someone Else' });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'external_user_id_taken', details: { user_id: data.id } });
  });

  it('allows the same external_user_id for another partner and for the other mode', async () => {
    const body = newUser();
    expect((await p.http.post('/api/users', body)).status).toBe(201);
    expect((await (await createPartner(t, { plan: 'growth' })).http.post('/api/users', body)).status).toBe(201);
    expect((await (await createKey(t, p.partnerId, 'live')).http.post('/api/users', body)).status).toBe(201);
  });

  it('validates the body (400 validation_failed with fields)', async () => {
    const res = await p.http.post('/api/users', { external_user_id: '', name: 'x', email: 'not-an-email', extra: 1 });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    const fields = res.body.error.details.map((d: { field: string }) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['external_user_id', 'email', 'extra']));
  });

  it('hides a learner from another partner and from the other mode (404)', async () => {
    const { data } = (await p.http.post('/api/users', newUser())).body;
    const other = await createPartner(t, { plan: 'growth' });
    const live = await createKey(t, p.partnerId, 'live');
    for (const api of [other.http, live.http]) {
      const res = await api.get(`/api/users/${data.id}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('user_not_found');
      expect((await api.get(`/api/users?external_user_id=${data.external_user_id}`)).body.data.total).toBe(0);
    }
  });

  it('answers 404 for an unknown id and 400 for a malformed one', async () => {
    expect((await p.http.get('/api/users/999999999')).body.error.code).toBe('user_not_found');
    expect((await p.http.get('/api/users/abc')).status).toBe(400);
  });
});
