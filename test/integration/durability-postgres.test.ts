import { startApp, TestApp } from '../support/app';
import { createPartner, CreatedPartner, unique } from '../support/factories';
import { ServiceProcess, startWorkerProcess } from '../support/processes';
import { TcpProxy } from '../support/tcp-proxy';
import { sleep, waitFor, WebhookReceiver } from '../support/webhook-receiver';
import { createLearner } from './enrollment.helpers';

// A PostgreSQL outage inside the worker is not a delivery attempt. The worker is a real process whose database
// connection goes through a proxy the test takes down; the API (this process) reaches PostgreSQL directly. The file's
// own database and Redis prefix keep every other file's sweeps and workers away from its backlog.
const pg = new TcpProxy('127.0.0.1', 5432);
let t: TestApp;
let worker: ServiceProcess;
let receiver: WebhookReceiver;
let partner: CreatedPartner;

beforeAll(async () => {
  receiver = await new WebhookReceiver().start();
  const proxied = new URL(process.env.DATABASE_URL!);
  proxied.port = String(await pg.start());
  t = await startApp({ RUN_WORKER: 'false' });
  // The sweep is slowed down so that what these tests see is the worker's own recovery, not a re-enqueue.
  worker = await startWorkerProcess('worker', { DATABASE_URL: proxied.toString(), WEBHOOK_SWEEP_INTERVAL_MS: '600000' });
  partner = await createPartner(t);
}, 120_000);
afterAll(async () => {
  await worker?.stop('SIGTERM', 20_000).catch(() => worker.kill());
  await t?.close();
  await Promise.all([pg.stop(), receiver?.stop()]);
});

async function subscribe(): Promise<{ id: string; path: string }> {
  const path = `/${unique('hook')}`;
  const res = await partner.http.post('/api/connect/webhooks', {
    url: receiver.url(path),
    events: ['user.registered'],
    secret: 'durability-secret-0123456789',
  });
  expect(res.status).toBe(201);
  return { id: res.body.data.id, path };
}

async function deliveriesOf(subscriptionId: string): Promise<Array<{ id: string; status: string; attempts: number; attempted_at: Date[] }>> {
  return t.db.query(
    `SELECT d.id, d.status, d.attempts, array_remove(array_agg(a.attempted_at ORDER BY a.attempted_at), NULL) AS attempted_at
       FROM webhook_deliveries d LEFT JOIN webhook_attempts a ON a.delivery_id = d.id
      WHERE d.subscription_id = $1 GROUP BY d.id ORDER BY d.id`,
    [subscriptionId],
  );
}

describe('PostgreSQL unreachable from the worker', () => {
  it('delivers a whole backlog after an outage longer than the retry budget, using no attempt for it', async () => {
    const sub = await subscribe();
    await pg.stop();
    try {
      for (let i = 0; i < 20; i++) await createLearner(partner.http);
      // About 1 s of retries is configured for the run (300,300,300): the outage lasts several times that. A fixed wait:
      // the outage's length is the point, and with PostgreSQL down there is no end state to wait for.
      await sleep(6000);
      expect(receiver.at(sub.path)).toHaveLength(0);
    } finally {
      await pg.start();
    }
    await waitFor(
      async () => {
        const rows = await deliveriesOf(sub.id);
        return rows.length === 20 && rows.every((r) => r.status === 'delivered');
      },
      30_000,
      'the backlog to be delivered',
    );
    const rows = await deliveriesOf(sub.id);
    expect(rows.map((r) => r.attempts)).toEqual(rows.map(() => 1));
    expect(new Set(receiver.at(sub.path).map((r) => r.headers['x-svc-delivery']))).toEqual(new Set(rows.map((r) => r.id)));
  });

  it('records a 2xx whose record failed once the database is back, without sending it again', async () => {
    const sub = await subscribe();
    receiver.script(sub.path, { delayMs: 800 });
    await createLearner(partner.http);
    // The receiver has the request; PostgreSQL goes away before it answers 200.
    await waitFor(() => receiver.at(sub.path).length === 1, 15_000, 'the attempt');
    const stoppedAt = Date.now();
    await pg.stop();
    await sleep(3000); // the outage's length is the point: the 200 arrives while PostgreSQL is away
    await pg.start();
    await waitFor(async () => (await deliveriesOf(sub.id))[0]?.status === 'delivered', 15_000, 'the success to be recorded');
    const [row] = await deliveriesOf(sub.id);
    expect(row.attempts).toBe(1);
    // The record keeps when the request went out (before the outage), not when it could finally be written (after it).
    // A bound against the outage, not against the receiver's clock reading: on a loaded machine the request may take
    // seconds to reach the receiver's event loop.
    expect(row.attempted_at[0].getTime()).toBeLessThanOrEqual(stoppedAt);
    expect(receiver.at(sub.path)).toHaveLength(1);
  });
});
