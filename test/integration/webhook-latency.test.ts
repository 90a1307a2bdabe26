import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { sql } from '../../src/common/database';
import { runMigrations } from '../../src/database/data-source';
import { dropDatabase, ensureDatabase } from '../../src/database/ensure-database';
import { startApp, TestApp } from '../support/app';
import { createPartner, CreatedPartner, unique } from '../support/factories';
import { ServiceProcess, startWorkerProcess } from '../support/processes';
import { RedisServer } from '../support/redis-server';
import { sleep, waitFor, WebhookReceiver } from '../support/webhook-receiver';
import { createLearner } from './enrollment.helpers';

// An event committed through the API goes out right after its commit, never at a periodic pass. The deployment of
// the compose file (an API process, here this one, and a worker process) with the outbox relay and the delivery sweep
// both set to run once an hour: a delivery that waited for either would not arrive within the test. A private database
// and Redis keep other files' workers, relays and sweeps (which work on every row of their database) out of it.
const HOUR = '3600000';
const database = (() => {
  const u = new URL(process.env.DATABASE_URL!);
  u.pathname = `${u.pathname}_latency_${randomBytes(3).toString('hex')}`;
  return u.toString();
})();
// A fresh database has no word vectors: the embedded search engine would spend the run importing them.
const noSearchEngine = { SEARCH_EMBEDDED_ENGINE: 'false' };
let redis: RedisServer;
let t: TestApp;
let worker: ServiceProcess;
let receiver: WebhookReceiver;
let partner: CreatedPartner;

beforeAll(async () => {
  redis = await RedisServer.start();
  receiver = await new WebhookReceiver().start();
  await ensureDatabase(database);
  await runMigrations(database);
  const env = { DATABASE_URL: database, REDIS_URL: redis.url, WEBHOOK_SWEEP_INTERVAL_MS: HOUR, WEBHOOK_RELAY_INTERVAL_MS: HOUR, ...noSearchEngine };
  t = await startApp({ ...env, RUN_WORKER: 'false' });
  worker = await startWorkerProcess('worker', env);
  partner = await createPartner(t);
}, 120_000);
afterAll(async () => {
  await worker?.stop('SIGTERM', 20_000).catch(() => worker.kill());
  await t?.close();
  await Promise.all([receiver?.stop(), redis?.stop()]);
  await dropDatabase(database);
});

async function subscribe(): Promise<string> {
  const path = `/${unique('hook')}`;
  const res = await partner.http.post('/api/connect/webhooks', { url: receiver.url(path), events: ['credits.purchased'], secret: 'latency-secret-0123456789' });
  expect(res.status).toBe(201);
  return path;
}

async function topUp(userId: number): Promise<{ transactionId: string; answeredAt: number }> {
  const res = await partner.http.post('/api/credits/topup', { user_id: userId, amount: 10 });
  expect(res.status).toBe(201);
  return { transactionId: (res.body as { data: { transaction_id: string } }).data.transaction_id, answeredAt: Date.now() };
}

/** Events of this file's database not fanned out yet. */
async function undispatched(): Promise<number> {
  const [{ n }] = await sql<{ n: number }>(t.db, `SELECT count(*)::int AS n FROM events_undispatched`);
  return n;
}

/** When the receiver got the `credits.purchased` delivery of this transaction, once it has. */
function receiptOf(path: string, transactionId: string): number | undefined {
  return receiver.at(path).find((r) => (JSON.parse(r.body.toString()) as { data: { transaction_id: string } }).data.transaction_id === transactionId)
    ?.receivedAt;
}

describe('webhook deliveries go out after the commit, not at a periodic pass', () => {
  it('delivers top-ups committed through the API within seconds while the relay and the sweep run hourly', async () => {
    const path = await subscribe();
    const learner = await createLearner(partner.http);
    for (let i = 0; i < 5; i++) {
      const { transactionId, answeredAt } = await topUp(learner.id);
      const receivedAt = await waitFor(() => receiptOf(path, transactionId), 5000, `the delivery of top-up ${i + 1}`);
      // Seconds at most on a loaded machine; a periodic pass would take an hour.
      expect(receivedAt - answeredAt).toBeLessThan(5000);
    }
    // Marked after the jobs are enqueued, so possibly a moment after the receipt.
    await waitFor(async () => (await undispatched()) === 0, 5000, 'every event marked dispatched');
  });

  it('delivers within seconds when the first fan-out fails on a transient PostgreSQL error, instead of leaving it to the relay', async () => {
    const path = await subscribe();
    const learner = await createLearner(partner.http);
    // Another session holds webhook_deliveries in SHARE mode: the fan-out's INSERT waits until its statement times out
    // (REQUEST_TIMEOUT_MS − 1 s), as it would behind a stuck lock or a restarting database. Reads still go through.
    const blocker = new Client({ connectionString: database });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE webhook_deliveries IN SHARE MODE');
      const { transactionId } = await topUp(learner.id);
      await sleep(t.config.requestTimeoutMs); // past the fan-out's statement timeout: its first try has failed
      expect(receiptOf(path, transactionId)).toBeUndefined();
      expect(await undispatched()).toBe(1);
      await blocker.query('COMMIT');
      const released = Date.now();
      const receivedAt = await waitFor(() => receiptOf(path, transactionId), 8000, 'the delivery after the lock was released');
      expect(receivedAt - released).toBeLessThan(8000);
    } finally {
      await blocker.end();
    }
  }, 30_000);
});
