import { startApp, TestApp } from '../support/app';
import { createAdmin, createPartner, CreatedPartner, unique } from '../support/factories';
import { RedisServer } from '../support/redis-server';
import { createWebinar, hostTokenOf } from './webinar.helpers';

// Security review, finding 3: idempotency records on keyless routes, and secrets stored in plain text.
// A private Redis, so every key the app writes can be read back and no shared per-IP window is touched.
let redis: RedisServer;
let t: TestApp;
let p: CreatedPartner;
let admin: CreatedPartner;

beforeAll(async () => {
  redis = await RedisServer.start();
  t = await startApp({ REDIS_URL: redis.url, REGISTRATION_LIMIT_PER_HOUR: '1000' });
  p = await createPartner(t, { plan: 'enterprise' });
  admin = await createAdmin(t);
});
afterAll(async () => {
  await t?.close();
  await redis?.stop();
});

const withKey = (key: string) => ({ headers: { 'Idempotency-Key': key } });

/** Every idempotency record the app keeps anywhere, as text. */
async function storedRecords(): Promise<string> {
  const keys = await redis.client.keys('*idem*');
  const values = await Promise.all(keys.map((k) => redis.client.get(k)));
  const rows: unknown[] = await t.db
    .query(`SELECT to_regclass('idempotency_keys') IS NOT NULL AS present`)
    .then(async ([r]) => (r.present ? t.db.query(`SELECT * FROM idempotency_keys`) : []));
  return JSON.stringify({ keys, values, rows });
}

describe('Idempotency-Key applies to keyed requests only (contract section 19)', () => {
  it('does not replay a registration to a second client behind the same IP, and stores nothing for it', async () => {
    const key = unique('idem');
    const body = { name: 'Same Body Inc', email: `${unique('reg')}@example.com` };
    const first = await t.http.post('/api/partners/register', body, withKey(key));
    expect(first.status).toBe(201);
    // Another address (one partner per address): had the key applied, this would be 422 idempotency_key_reused.
    const second = await t.http.post('/api/partners/register', { ...body, email: `${unique('reg')}@example.com` }, withKey(key));
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.data.api_key.key).not.toBe(first.body.data.api_key.key);
    const stored = await storedRecords();
    expect(stored).not.toContain(key);
    expect(stored).not.toContain(first.body.data.api_key.key);
  });

  it('keeps no record for keyless webinar page actions', async () => {
    const key = unique('idem');
    for (let i = 0; i < 3; i++) {
      const res = await t.http.post(`/live/attend/wbn_${unique('none').replace(/-/g, '')}`, undefined, withKey(key));
      expect(res.headers.get('idempotent-replayed')).toBeNull();
    }
    expect(await storedRecords()).not.toContain(key);
  });

  it('ignores even a malformed Idempotency-Key on a keyless route', async () => {
    const res = await t.http.post('/api/partners/register', { name: 'Long Key Ltd', email: `${unique('reg')}@example.com` }, withKey('k'.repeat(300)));
    expect(res.status).toBe(201);
  });
});

describe('stored responses holding a secret are encrypted at rest (contract section 19)', () => {
  it('never stores an issued API key in plain text, and still replays it', async () => {
    const key = unique('idem');
    const first = await admin.http.post(`/api/admin/partners/${p.partnerId}/keys`, { mode: 'test' }, withKey(key));
    expect(first.status).toBe(201);
    const apiKey: string = first.body.data.key;
    const stored = await storedRecords();
    expect(stored).toContain(key.slice(0, 4)); // the record exists
    expect(stored).not.toContain(apiKey);
    expect(stored).not.toContain(apiKey.slice(9, 30));
    const again = await admin.http.post(`/api/admin/partners/${p.partnerId}/keys`, { mode: 'test' }, withKey(key));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.key).toBe(apiKey);
  });

  it("never stores a webinar's host token in plain text, and still replays it", async () => {
    const key = unique('idem');
    const host = await p.http.post('/api/users', { external_user_id: unique('host'), name: 'Host', email: `${unique('h')}@example.com` });
    const body = { title: unique('Webinar'), host_id: host.body.data.id, scheduled_at: new Date(Date.now() + 3600_000).toISOString() };
    const first = await p.http.post('/api/webinars/create', body, withKey(key));
    expect(first.status).toBe(201);
    const token = hostTokenOf(first.body.data);
    expect(token.length).toBeGreaterThanOrEqual(32);
    expect(await storedRecords()).not.toContain(token);
    const again = await p.http.post('/api/webinars/create', body, withKey(key));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(hostTokenOf(again.body.data)).toBe(token);
  });

  it('never stores a personal join link in plain text', async () => {
    const w = await createWebinar(p);
    const learner = await p.http.post('/api/users', { external_user_id: unique('l'), name: 'Learner', email: `${unique('l')}@example.com` });
    const res = await p.http.post(`/api/webinars/${w.webinar_id}/register`, { user_id: learner.body.data.id }, withKey(unique('idem')));
    expect(res.status).toBe(201);
    const link: string = res.body.data.join_url;
    expect(link).toContain('?');
    expect(await storedRecords()).not.toContain(new URL(link).search.slice(1));
  });
});
