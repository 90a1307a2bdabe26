import { Queue } from 'bullmq';
import { WEBHOOK_QUEUE } from '../../src/redis/queues';
import Redis from 'ioredis';
import { createHmac, randomBytes } from 'node:crypto';
import { monthOf } from '../../src/auth/usage-limiter';
import { startApp, TestApp } from '../support/app';
import { createAdmin, createKey, createPartner, CreatedPartner, unique } from '../support/factories';
import { killAll, ServiceProcess, startApiProcess, startWorkerProcess } from '../support/processes';
import { sleep, waitFor, WebhookReceiver } from '../support/webhook-receiver';

jest.setTimeout(180_000);

const SECRET = 'scale-out-secret-0123456789';

/** A plain request to one of the spawned APIs. */
async function call(baseUrl: string, method: string, path: string, key: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(baseUrl + path, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * The production topology on one PostgreSQL and Redis: two API processes (RUN_WORKER=false) behind an imaginary
 * load balancer (the test alternates between them) and two worker processes, all spawned from src/.
 */
describe('scale-out: two API and two worker processes', () => {
  let t: TestApp;
  let redis: Redis;
  let receiver: WebhookReceiver;
  const prefix = `${process.env.REDIS_PREFIX}-scale`;
  const procs: ServiceProcess[] = [];
  let apis: string[] = [];

  beforeAll(async () => {
    t = await startApp({ RUN_WORKER: 'false', DATABASE_POOL_SIZE: '5' });
    redis = new Redis(process.env.REDIS_URL!);
    receiver = await new WebhookReceiver().start();
    const env = { RUN_WORKER: 'false', REDIS_PREFIX: prefix };
    procs.push(
      ...(await Promise.all([
        startApiProcess('api-1', env, 90_000),
        startApiProcess('api-2', env, 90_000),
        startWorkerProcess('worker-1', env, 90_000),
        startWorkerProcess('worker-2', env, 90_000),
      ])),
    );
    apis = procs.slice(0, 2).map((p) => p.baseUrl);
  });

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.stop('SIGTERM', 20_000).catch(() => p.kill())));
    await killAll(); // anything a failed start-up left behind
    await receiver?.stop();
    redis?.disconnect();
    await t?.close();
  });

  const api = (i: number) => apis[i % apis.length];

  it('keeps the monthly quota exact across both APIs', async () => {
    const partner = await createPartner(t, { plan: 'growth' });
    // Four keys of the same partner and mode share one quota; each stays under the 50 req/s per-key rate limit.
    const keys = [partner.key, ...(await Promise.all([1, 2, 3].map(() => createKey(t, partner.partnerId, 'test')))).map((k) => k.key)];
    const left = 60;
    const quotaKey = `${prefix}:quota:${partner.partnerId}:test:${monthOf()}`;
    await redis.set(quotaKey, 50_000 - left);

    const results = await Promise.all(Array.from({ length: 120 }, (_, i) => call(api(i), 'GET', '/api/partners/me', keys[i % keys.length])));
    const codes = results.map((r) => (r.status === 200 ? 'ok' : r.body.error.code));
    expect(codes.filter((c) => c === 'ok')).toHaveLength(left);
    expect(codes.filter((c) => c === 'monthly_quota_exceeded')).toHaveLength(120 - left);
    // Both instances served some of the passing calls, and refused calls were not counted.
    expect(new Set(results.map((r, i) => (r.status === 200 ? i % 2 : -1)).filter((x) => x >= 0)).size).toBe(2);
    expect(Number(await redis.get(quotaKey))).toBe(50_000);
  });

  it('applies a revocation made on one API on both within 5 seconds', async () => {
    const admin = await createAdmin(t);
    const partner = await createPartner(t, { plan: 'growth' });
    // Both instances have the key cached as valid.
    for (const base of apis) expect((await call(base, 'GET', '/api/partners/me', partner.key)).status).toBe(200);

    const revokedAt = Date.now();
    expect((await call(apis[0], 'POST', `/api/admin/keys/${partner.keyId}/revoke`, admin.key)).status).toBe(200);
    const refusedAfter = await Promise.all(
      apis.map(async (base) => {
        for (;;) {
          const r = await call(base, 'GET', '/api/partners/me', partner.key);
          if (r.status === 401 && r.body.error.code === 'revoked_api_key') return Date.now() - revokedAt;
          if (Date.now() - revokedAt > 10_000) return Infinity;
          await sleep(100);
        }
      }),
    );
    for (const ms of refusedAfter) expect(ms).toBeLessThan(5000);
  });

  it('delivers every event once per subscription: no double dispatch by two relays or two workers', async () => {
    const partner = await createPartner(t, { plan: 'enterprise' });
    const other = await createPartner(t, { plan: 'enterprise' });
    const subs: string[] = [];
    for (const [p, path] of [
      [partner, '/a'],
      [partner, '/b'],
      [other, '/c'],
    ] as Array<[CreatedPartner, string]>) {
      const r = await call(api(subs.length), 'POST', '/api/connect/webhooks', p.key, { url: receiver.url(path), events: ['user.registered'], secret: SECRET });
      expect(r.status).toBe(201);
      subs.push(r.body.data.id);
    }

    // Events dispatched in process right after commit, by either API.
    const created = await Promise.all(
      Array.from({ length: 40 }, (_, i) => {
        const ext = unique('learner');
        return call(api(i), 'POST', '/api/users', partner.key, { external_user_id: ext, name: 'Scale Out', email: `${ext}@example.com` });
      }),
    );
    expect(created.every((r) => r.status === 201)).toBe(true);
    // Events committed by a process that died before enqueueing: left to the outbox relays of both workers at once.
    const orphans = Array.from({ length: 60 }, (_, i) => ({ id: `evt_${randomBytes(12).toString('hex')}`, n: i }));
    for (const o of orphans) {
      const payload = {
        user_id: 1_000_000 + o.n,
        external_user_id: `orphan-${o.n}`,
        name: 'Orphan',
        email: `orphan-${o.n}@example.com`,
        registered_at: new Date().toISOString(),
      };
      await t.db.query(
        `WITH e AS (
           INSERT INTO events (id, partner_id, mode, type, payload, occurred_at, created_at)
           VALUES ($1, $2, 'test', 'user.registered', $3, now(), now() - interval '10 seconds') RETURNING id, created_at)
         INSERT INTO events_undispatched (event_id, created_at) SELECT id, created_at FROM e`,
        [o.id, partner.partnerId, payload],
      );
    }

    const expectedA = 40 + orphans.length;
    const distinct = (path: string) => new Set(receiver.at(path).map((r) => r.headers['x-svc-delivery'] as string));
    await waitFor(() => distinct('/a').size >= expectedA && distinct('/b').size >= expectedA, 60_000, 'all deliveries');
    // Settled: every orphan dispatched (no relay can claim it again), every delivery row delivered and no delivery job
    // left in the queue (waiting, delayed or running), so a duplicate, if any, has arrived by now.
    const connection = redis.duplicate();
    const queue = new Queue(WEBHOOK_QUEUE, { connection, prefix: `${prefix}:bull` });
    try {
      await waitFor(
        async () => {
          const [{ open }] = await t.db.query(
            `SELECT (SELECT count(*) FROM events_undispatched WHERE event_id = ANY ($1))
                  + (SELECT count(*) FROM webhook_deliveries WHERE subscription_id = ANY ($2) AND status <> 'delivered') AS open`,
            [orphans.map((o) => o.id), subs.slice(0, 2)],
          );
          const jobs = await queue.getJobCounts('waiting', 'delayed', 'prioritized', 'active');
          return Number(open) === 0 && Object.values(jobs).every((n) => n === 0);
        },
        30_000,
        'every delivery delivered and the delivery queue empty',
      );
    } finally {
      await queue.close();
      connection.disconnect();
    }
    for (const path of ['/a', '/b']) {
      expect(distinct(path).size).toBe(expectedA);
      expect(receiver.at(path)).toHaveLength(expectedA); // exactly once: no second receipt of any webhook_id
      for (const r of receiver.at(path)) {
        expect(r.headers['x-svc-signature']).toBe(`sha256=${createHmac('sha256', SECRET).update(r.body).digest('hex')}`);
      }
    }
    expect(receiver.at('/c')).toHaveLength(0); // another partner's subscription matches none of these
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = ANY($1) AND status = 'delivered'`, [
      subs.slice(0, 2),
    ]);
    expect(n).toBe(2 * expectedA);
  });

  it('holds webinar capacity with parallel joins split across both APIs', async () => {
    const partner = await createPartner(t, { plan: 'enterprise' });
    const users = await Promise.all(
      Array.from({ length: 31 }, (_, i) => {
        const ext = unique('attendee');
        return call(api(i), 'POST', '/api/users', partner.key, { external_user_id: ext, name: 'Attendee', email: `${ext}@example.com` });
      }),
    );
    const [host, ...attendees] = users.map((u) => u.body.data.id as number);
    const created = await call(apis[0], 'POST', '/api/webinars/create', partner.key, {
      title: 'Capacity',
      host_id: host,
      scheduled_at: new Date(Date.now() + 60_000).toISOString(),
      max_attendees: 7,
    });
    expect(created.status).toBe(201);
    const id = created.body.data.webinar_id;
    expect((await call(apis[1], 'POST', `/api/webinars/${id}/start`, partner.key)).status).toBe(200);

    const joins = await Promise.all(attendees.map((userId, i) => call(api(i), 'POST', `/api/webinars/${id}/join`, partner.key, { user_id: userId })));
    expect(joins.filter((r) => r.status === 200)).toHaveLength(7);
    expect(joins.filter((r) => r.status === 409 && r.body.error.code === 'webinar_full')).toHaveLength(attendees.length - 7);
    const list = await call(apis[1], 'GET', `/api/webinars/${id}/attendees`, partner.key);
    expect(list.body.data.attendees.filter((a: { status: string }) => a.status === 'joined')).toHaveLength(7);
  });
});
