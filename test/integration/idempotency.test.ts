import { CreditsService as CreditsServiceToken } from '../../src/credits/credits.service';
import { startApp, TestApp } from '../support/app';
import { createCourse, createKey, createPartner, CreatedPartner, unique } from '../support/factories';
import { countBy, createLearner, ledgerOf, topUp } from './enrollment.helpers';

let t: TestApp;
let p: CreatedPartner;
beforeAll(async () => {
  t = await startApp();
  p = await createPartner(t, { plan: 'enterprise' });
});
afterAll(() => t.close());

const withKey = (key: string) => ({ headers: { 'Idempotency-Key': key } });

describe('Idempotency-Key', () => {
  it('replays the first response with Idempotent-Replayed: true and no second effect', async () => {
    const user = await createLearner(p.http);
    const key = unique('idem');
    const first = await p.http.post('/api/credits/topup', { user_id: user.id, amount: 12 }, withKey(key));
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await p.http.post('/api/credits/topup', { amount: 12, user_id: user.id }, withKey(key));
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await ledgerOf(t.db, user.id)).toEqual({ balance: 12, sum: 12, rows: 1 });
  });

  it('answers 422 idempotency_key_reused for the same key with another body or path', async () => {
    const user = await createLearner(p.http);
    const key = unique('idem');
    await p.http.post('/api/credits/topup', { user_id: user.id, amount: 12 }, withKey(key));
    const other = await p.http.post('/api/credits/topup', { user_id: user.id, amount: 13 }, withKey(key));
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('idempotency_key_reused');
    expect((await p.http.post('/api/users', { external_user_id: unique('e'), name: 'N', email: 'n@example.com' }, withKey(key))).status).toBe(422);
    expect((await ledgerOf(t.db, user.id)).balance).toBe(12);
  });

  it('has one effect for 20 parallel requests with one key (others 409 in progress or replayed)', async () => {
    const user = await createLearner(p.http);
    await topUp(p.http, user.id, 100);
    const { course } = await createCourse(t.db, { creditCost: 10 });
    const key = unique('idem');
    const results = await Promise.all(Array.from({ length: 20 }, () => p.http.post('/api/enroll', { user_id: user.id, course_id: course.id }, withKey(key))));
    const fresh = results.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
    expect(fresh).toHaveLength(1);
    for (const r of results.filter((x) => x !== fresh[0])) {
      if (r.status === 201) expect(r.body).toEqual(fresh[0].body);
      else expect([r.status, r.body.error.code]).toEqual([409, 'idempotency_request_in_progress']);
    }
    expect(await ledgerOf(t.db, user.id)).toEqual({ balance: 90, sum: 90, rows: 2 });
    expect(countBy(await t.db.query(`SELECT course_id FROM enrollments WHERE user_id = $1`, [user.id]), (r: { course_id: number }) => r.course_id)).toEqual({
      [course.id]: 1,
    });
  });

  it('keeps a deterministic 4xx and replays it', async () => {
    const user = await createLearner(p.http);
    const { course } = await createCourse(t.db, { creditCost: 10 });
    const key = unique('idem');
    const first = await p.http.post('/api/enroll', { user_id: user.id, course_id: course.id }, withKey(key));
    expect(first.status).toBe(402);
    await topUp(p.http, user.id, 10);
    const again = await p.http.post('/api/enroll', { user_id: user.id, course_id: course.id }, withKey(key));
    expect(again.status).toBe(402);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it('frees the key after a 5xx so a retry runs again', async () => {
    const user = await createLearner(p.http);
    const key = unique('idem');
    const failing = jest.spyOn(t.app.get(CreditsServiceToken), 'topUp').mockRejectedValueOnce(new Error('boom'));
    expect((await p.http.post('/api/credits/topup', { user_id: user.id, amount: 4 }, withKey(key))).status).toBe(500);
    failing.mockRestore();
    const retry = await p.http.post('/api/credits/topup', { user_id: user.id, amount: 4 }, withKey(key));
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect((await ledgerOf(t.db, user.id)).balance).toBe(4);
  });

  it('scopes keys by partner and mode', async () => {
    const key = unique('idem');
    const body = () => ({ external_user_id: 'same-ext', name: 'N', email: 'n@example.com' });
    const a = await (await createPartner(t, { plan: 'growth' })).http.post('/api/users', body(), withKey(key));
    const other = await createPartner(t, { plan: 'growth' });
    const b = await other.http.post('/api/users', body(), withKey(key));
    const c = await (await createKey(t, other.partnerId, 'live')).http.post('/api/users', body(), withKey(key));
    expect([a.status, b.status, c.status]).toEqual([201, 201, 201]);
    expect(new Set([a.body.data.id, b.body.data.id, c.body.data.id]).size).toBe(3);
  });

  it('rejects an empty key or one longer than 255 characters (400) and accepts 255', async () => {
    const user = await createLearner(p.http);
    expect((await p.http.post('/api/credits/topup', { user_id: user.id, amount: 1 }, withKey(''))).status).toBe(400);
    const long = await p.http.post('/api/credits/topup', { user_id: user.id, amount: 1 }, withKey('k'.repeat(256)));
    expect(long.status).toBe(400);
    expect(long.body.error.details).toEqual([{ field: 'Idempotency-Key', message: expect.any(String) }]);
    expect((await p.http.post('/api/credits/topup', { user_id: user.id, amount: 1 }, withKey(`${unique('k')}${'k'.repeat(241)}`.slice(0, 255)))).status).toBe(
      201,
    );
  });

  it('does not apply to GET requests', async () => {
    const user = await createLearner(p.http);
    const res = await p.http.get(`/api/credits/balance/${user.id}`, withKey(unique('idem')));
    expect(res.status).toBe(200);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
  });
});
