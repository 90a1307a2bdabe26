import { createHash } from 'node:crypto';
import { CONSUME_SCRIPT, UsageLimiter } from '../../src/auth/usage-limiter';
import { startApp, TestApp } from '../support/app';
import { createPartner, CreatedPartner, unique } from '../support/factories';
import { ServiceProcess, startWorkerProcess } from '../support/processes';
import { RedisServer } from '../support/redis-server';
import { waitFor, WebhookReceiver } from '../support/webhook-receiver';
import { createLearner, ledgerOf, topUp } from './enrollment.helpers';
import { hostTokenOf } from './webinar.helpers';

// Contract section 20: Redis may forget. The app runs on a private redis-server that the tests empty, restart empty
// and freeze; PostgreSQL is the run's real database.
let redis: RedisServer;
let t: TestApp;
let p: CreatedPartner;

beforeAll(async () => {
  redis = await RedisServer.start();
  t = await startApp({ REDIS_URL: redis.url, RUN_WORKER: 'false' });
  p = await createPartner(t, { plan: 'enterprise' });
});
afterAll(async () => {
  await t?.close();
  await redis?.stop();
});

const withKey = (key: string) => ({ headers: { 'Idempotency-Key': key } });

describe('Idempotency-Key outcomes live in PostgreSQL', () => {
  it('replays a top-up after Redis lost its data, without crediting twice', async () => {
    const user = await createLearner(p.http);
    const key = unique('idem');
    const first = await p.http.post('/api/credits/topup', { user_id: user.id, amount: 25 }, withKey(key));
    expect(first.status).toBe(201);
    await redis.flush();
    const again = await p.http.post('/api/credits/topup', { user_id: user.id, amount: 25 }, withKey(key));
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await ledgerOf(t.db, user.id)).toEqual({ balance: 25, sum: 25, rows: 1 });
    // Another body with the same key is still refused.
    const other = await p.http.post('/api/credits/topup', { user_id: user.id, amount: 26 }, withKey(key));
    expect([other.status, other.body.error.code]).toEqual([422, 'idempotency_key_reused']);
  });

  it('replays a webinar creation after Redis restarted empty: one webinar, the same host link', async () => {
    const host = await createLearner(p.http, 'Host');
    const key = unique('idem');
    const body = { title: unique('Webinar'), host_id: host.id, scheduled_at: new Date(Date.now() + 3600_000).toISOString() };
    const first = await p.http.post('/api/webinars/create', body, withKey(key));
    expect(first.status).toBe(201);
    await redis.restartEmpty();
    const again = await retryWhile503(() => p.http.post('/api/webinars/create', body, withKey(key)));
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(hostTokenOf(again.body.data)).toBe(hostTokenOf(first.body.data));
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM webinars WHERE title = $1`, [body.title]);
    expect(n).toBe(1);
  });

  it('applies a write once when Redis forgets the claim while the first request is still running', async () => {
    const user = await createLearner(p.http);
    await topUp(p.http, user.id, 1);
    const key = unique('idem');
    // Hold the learner's balance row so the first top-up waits inside its transaction.
    const blocker = t.db.createQueryRunner();
    await blocker.connect();
    await blocker.startTransaction();
    try {
      await blocker.query(`SELECT balance FROM credit_accounts WHERE user_id = $1 FOR UPDATE`, [user.id]);
      const [{ pid }] = await blocker.query(`SELECT pg_backend_pid() AS pid`);
      const first = p.http.post('/api/credits/topup', { user_id: user.id, amount: 7 }, withKey(key));
      await waitForLockWaiters(pid, 1);
      await redis.flush(); // the in-flight claim is gone
      const second = p.http.post('/api/credits/topup', { user_id: user.id, amount: 7 }, withKey(key));
      await waitForLockWaiters(pid, 2);
      await blocker.commitTransaction();
      const answers = await Promise.all([first, second]);
      const fresh = answers.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
      expect(fresh).toHaveLength(1);
      for (const r of answers.filter((a) => a !== fresh[0])) {
        if (r.status === 201) expect(r.body).toEqual(fresh[0].body);
        else expect([r.status, r.body.error.code]).toEqual([409, 'idempotency_request_in_progress']);
      }
    } finally {
      if (blocker.isTransactionActive) await blocker.rollbackTransaction();
      await blocker.release();
    }
    expect(await ledgerOf(t.db, user.id)).toEqual({ balance: 8, sum: 8, rows: 2 });
    // Settled: every later retry is the replay.
    const later = await p.http.post('/api/credits/topup', { user_id: user.id, amount: 7 }, withKey(key));
    expect([later.status, later.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
  });

  it('answers 409 in progress, and applies nothing, for a key committed with its write but whose response was never stored', async () => {
    // What a process that died between COMMIT and storing the response leaves behind (the row of the write's transaction).
    const user = await createLearner(p.http);
    const key = unique('idem');
    const { requestFingerprint } = await import('../../src/idempotency/fingerprint');
    const fp = requestFingerprint('POST', '/api/credits/topup', { user_id: user.id, amount: 5 });
    await t.db.query(`INSERT INTO idempotency_keys (scope_key, fingerprint) VALUES ($1, $2)`, [`p:${p.partnerId}:test:${key}`, fp]);
    await redis.flush();
    const retry = await p.http.post('/api/credits/topup', { user_id: user.id, amount: 5 }, withKey(key));
    expect([retry.status, retry.body.error.code]).toEqual([409, 'idempotency_request_in_progress']);
    expect((await ledgerOf(t.db, user.id)).rows).toBe(0);
  });
});

describe('the monthly quota survives Redis losing its data', () => {
  it('keeps counting from the stored usage after FLUSHDB and after a restart empty', async () => {
    const starter = await createPartner(t, { plan: 'starter' });
    for (let i = 0; i < 4; i++) expect((await starter.http.get('/api/courses')).status).toBe(200);
    await storedUsage(starter.partnerId, 4);
    await redis.flush();
    const afterFlush = await starter.http.get('/api/courses');
    expect(afterFlush.headers.get('x-quota-remaining')).toBe(String(500 - 5));
    await storedUsage(starter.partnerId, 5);
    // Restarted empty, Redis has no scripts either: the guard's EVALSHA gets NOSCRIPT and falls back to EVAL.
    await redis.restartEmpty();
    const me = await retryWhile503(() => starter.http.get('/api/partners/me'));
    expect(me.status).toBe(200);
    expect(me.body.data.usage).toMatchObject({ calls: 6, limit: 500, remaining: 494 });
    // Only EVAL can have put the quota script back into a Redis restarted empty: the guard fell back from EVALSHA.
    expect(await redis.client.script('EXISTS', createHash('sha1').update(CONSUME_SCRIPT).digest('hex'))).toEqual([1]);
  });

  it('stays exact under concurrency after a wipe: with 30 calls left, 30 of 45 parallel calls pass', async () => {
    const growth = await createPartner(t, { plan: 'growth' });
    const limiter = t.app.get(UsageLimiter);
    await redis.client.set(limiter.quotaKey(growth.partnerId, 'test'), String(50_000 - 31));
    expect((await growth.http.get('/api/courses')).headers.get('x-quota-remaining')).toBe('30');
    await storedUsage(growth.partnerId, 50_000 - 30);
    await redis.flush();
    const results = await Promise.all(Array.from({ length: 45 }, () => growth.http.get('/api/courses')));
    const statuses = results.map((r) => (r.status === 200 ? 'ok' : r.body.error.code));
    expect(statuses.filter((s) => s === 'ok')).toHaveLength(30);
    expect(statuses.filter((s) => s !== 'ok').every((s) => s === 'monthly_quota_exceeded')).toBe(true);
    expect(await limiter.used(growth.partnerId, 'test')).toBe(50_000);
  });
});

describe('a frozen Redis (SIGSTOP) is a 503 within REQUEST_TIMEOUT_MS, never a hang or a 500', () => {
  it('answers every kind of request in time while Redis is stopped, and recovers once it runs again', async () => {
    const user = await createLearner(p.http);
    redis.freeze();
    const started = Date.now();
    let answers: Array<{ status: number; ms: number; code?: string }>;
    try {
      answers = await Promise.all(
        [
          () => p.http.get('/api/partners/me'),
          () => p.http.post('/api/credits/topup', { user_id: user.id, amount: 3 }),
          () => p.http.post('/api/credits/topup', { user_id: user.id, amount: 3 }, withKey(unique('idem'))),
          () => p.http.get(`/api/credits/balance/${user.id}`),
        ].map(async (call) => {
          const res = await call();
          return { status: res.status, ms: Date.now() - started, code: res.body?.error?.code };
        }),
      );
    } finally {
      redis.thaw();
    }
    for (const a of answers) {
      expect(a.ms).toBeLessThan(t.config.requestTimeoutMs + 500);
      expect([a.status, a.code]).toEqual([503, 'service_unavailable']);
    }
    expect((await retryWhile503(() => p.http.get('/api/partners/me'))).status).toBe(200);
  });
});

describe('deliveries are driven by PostgreSQL: Redis losing its jobs loses no delivery', () => {
  const workerEnv = () => ({ REDIS_URL: redis.url, WEBHOOK_SWEEP_INTERVAL_MS: '1000' });
  let worker: ServiceProcess | undefined;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
  });
  afterAll(async () => {
    await worker?.stop('SIGTERM', 20_000).catch(() => worker?.kill());
    await receiver.stop();
  });

  async function subscribe(partner: CreatedPartner): Promise<{ id: string; path: string }> {
    const path = `/${unique('hook')}`;
    const res = await partner.http.post('/api/connect/webhooks', {
      url: receiver.url(path),
      events: ['user.registered'],
      secret: 'durability-secret-0123456789',
    });
    expect(res.status).toBe(201);
    return { id: res.body.data.id, path };
  }

  async function deliveriesOf(subscriptionId: string): Promise<Array<{ id: string; status: string; attempts: number }>> {
    return t.db.query(`SELECT id, status, attempts FROM webhook_deliveries WHERE subscription_id = $1 ORDER BY id`, [subscriptionId]);
  }

  /** Every delivery of the subscription is delivered and its webhook_id reached the receiver (duplicates allowed). */
  async function allArrive(sub: { id: string; path: string }, count: number, timeoutMs = 30_000): Promise<void> {
    await waitFor(
      async () => {
        const rows = await deliveriesOf(sub.id);
        const received = new Set(receiver.at(sub.path).map((r) => r.headers['x-svc-delivery']));
        return rows.length === count && rows.every((r) => r.status === 'delivered' && received.has(r.id));
      },
      timeoutMs,
      `${count} deliveries to arrive`,
    );
  }

  it('sends every delivery that was queued when Redis restarted empty', async () => {
    const partner = await createPartner(t);
    const sub = await subscribe(partner);
    // No worker: the jobs wait in Redis.
    for (let i = 0; i < 20; i++) await createLearner(partner.http);
    await waitFor(async () => (await deliveriesOf(sub.id)).length === 20, 10_000, 'the fan-out');
    expect(await redis.client.keys('*webhook-deliveries:*')).not.toHaveLength(0);
    await redis.restartEmpty();
    worker = await startWorkerProcess('worker', workerEnv());
    await allArrive(sub, 20);
    expect((await deliveriesOf(sub.id)).every((d) => d.attempts === 1)).toBe(true);
  }, 90_000); // a worker process to start and a 30 s wait for the sweep: more than the default test time on a loaded machine

  it('sends every delivery whose attempt was in flight when Redis was emptied, retries included', async () => {
    worker ??= await startWorkerProcess('worker', workerEnv());
    const partner = await createPartner(t);
    const sub = await subscribe(partner);
    // Ten slow answers, half of them failures that must be retried by a job Redis no longer has.
    receiver.script(sub.path, ...Array.from({ length: 10 }, (_, i) => ({ delayMs: 1500, status: i % 2 ? 500 : 200 })));
    for (let i = 0; i < 10; i++) await createLearner(partner.http);
    await waitFor(() => receiver.at(sub.path).length === 10, 15_000, 'ten attempts in flight');
    await redis.flush();
    await allArrive(sub, 10);
    // The five answered 500 were sent again (the sweep may also resend one still in flight: at-least-once).
    const ids = receiver.at(sub.path).map((r) => r.headers['x-svc-delivery']);
    const failedFirst = ids.slice(0, 10).filter((_, i) => i % 2);
    for (const id of failedFirst) expect(ids.filter((x) => x === id).length).toBeGreaterThanOrEqual(2);
  }, 90_000);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until the periodic flush (every USAGE_FLUSH_MS) has written this many test-mode calls of the month to
 * PostgreSQL: the record a Redis that lost its data is restored from. Waiting for the row rather than sleeping past
 * the interval ends as soon as the flush has run.
 */
async function storedUsage(partnerId: number, calls: number): Promise<void> {
  const stored = async () =>
    (
      (await t.db.query(`SELECT calls FROM usage_counters WHERE partner_id = $1 AND mode = 'test' AND month = to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM')`, [
        partnerId,
      ])) as Array<{ calls: string }>
    )[0]?.calls;
  await waitFor(async () => (await stored()) === String(calls), 10_000, `${calls} calls stored`);
}

/** Right after a restart the app's Redis clients reconnect (up to a few hundred ms): 503 until then. */
async function retryWhile503<T extends { status: number }>(call: () => Promise<T>): Promise<T> {
  let res = await call();
  for (let i = 0; res.status === 503 && i < 50; i++) {
    await sleep(100);
    res = await call();
  }
  return res;
}

describe('an outcome sealed under another WEBHOOK_SECRET_KEY', () => {
  it('keeps the key taken (409) instead of applying the write again', async () => {
    const { SealedBox } = await import('../../src/common/sealed-box');
    const { requestFingerprint } = await import('../../src/idempotency/fingerprint');
    const user = await createLearner(p.http);
    const key = unique('idem');
    const body = { user_id: user.id, amount: 4 };
    const sealed = new SealedBox('a-previous-secret-key-that-is-long-enough', 'partner-api', 'idempotency-responses').seal('{"status":"success"}');
    await t.db.query(`INSERT INTO idempotency_keys (scope_key, fingerprint, status, body) VALUES ($1, $2, 201, $3)`, [
      `p:${p.partnerId}:test:${key}`,
      requestFingerprint('POST', '/api/credits/topup', body),
      sealed,
    ]);
    const retry = await p.http.post('/api/credits/topup', body, withKey(key));
    expect([retry.status, retry.body.error.code]).toEqual([409, 'idempotency_request_in_progress']);
    expect((await ledgerOf(t.db, user.id)).rows).toBe(0);
  });
});

/** Waits until this many sessions wait, directly or behind another waiter, on the blocker's lock (the requests reached their UPDATE). */
async function waitForLockWaiters(blockerPid: number, n: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const [{ waiting }] = await t.db.query(
      `WITH RECURSIVE w(pid) AS (
         SELECT pid FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))
         UNION SELECT a.pid FROM pg_stat_activity a JOIN w ON w.pid = ANY (pg_blocking_pids(a.pid)))
       SELECT count(*)::int AS waiting FROM w`,
      [blockerPid],
    );
    if (waiting >= n) return;
    if (Date.now() > deadline) throw new Error(`expected ${n} lock waiters, saw ${waiting}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
