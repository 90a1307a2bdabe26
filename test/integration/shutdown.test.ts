import { Agent, request } from 'node:http';
import { startApp, TestApp } from '../support/app';
import { createCourse, createPartner, CreatedPartner, unique } from '../support/factories';
import { killAll, ServiceProcess, startApiProcess, startWorkerProcess } from '../support/processes';
import { sleep, waitFor, WebhookReceiver } from '../support/webhook-receiver';

jest.setTimeout(120_000);

interface Outcome {
  userId: number;
  status?: number;
  error?: string;
  at: number;
}

/** One POST over its own connection (agent) so refusals at connect time are told apart from cut responses. */
function post(baseUrl: string, path: string, key: string, body: unknown, agent: Agent | false): Promise<{ status?: number; error?: string }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve) => {
    const req = request(
      baseUrl + path,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'x-api-key': key, 'content-length': Buffer.byteLength(payload) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode }));
        res.on('error', (e: NodeJS.ErrnoException) => resolve({ error: `cut after headers: ${e.code ?? e.message}` }));
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    req.end(payload);
  });
}

/** JSON POST to the in-process helper app (setup only). */
async function setup(t: TestApp, key: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(t.baseUrl + path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

describe('graceful shutdown (SIGTERM) of the API and the worker processes', () => {
  let t: TestApp;
  let partner: CreatedPartner;
  let receiver: WebhookReceiver;
  const procs: ServiceProcess[] = [];
  const env = () => ({ RUN_WORKER: 'false', REDIS_PREFIX: `${process.env.REDIS_PREFIX}-shutdown`, WEBHOOK_TIMEOUT_MS: '5000' });

  beforeAll(async () => {
    t = await startApp({ RUN_WORKER: 'false', DATABASE_POOL_SIZE: '5' });
    receiver = await new WebhookReceiver().start();
    partner = await createPartner(t, { plan: 'enterprise' });
  });

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.kill()));
    await killAll(); // anything a failed start-up left behind
    await receiver?.stop();
    await t?.close();
  });

  it('finishes every accepted request and running delivery, refuses the rest, and loses no delivery', async () => {
    const { course } = await createCourse(t.db, { creditCost: 0 });
    const hook = await setup(t, partner.key, '/api/connect/webhooks', {
      url: receiver.url('/slow'),
      events: ['course.enrolled'],
      secret: 'a-secret-of-sixteen+',
    });
    expect(hook.status).toBe(201);
    const users: number[] = [];
    for (let i = 0; i < 160; i += 40) {
      const batch = await Promise.all(
        Array.from({ length: 40 }, () => {
          const ext = unique('learner');
          return setup(t, partner.key, '/api/users', { external_user_id: ext, name: 'Shut Down', email: `${ext}@example.com` });
        }),
      );
      users.push(...batch.map((r) => r.body.data.id as number));
    }
    // Every delivery takes 1.5 s, so the worker has attempts running when SIGTERM arrives.
    receiver.script('/slow', ...Array.from({ length: 400 }, () => ({ delayMs: 1500 })));

    const api = await startApiProcess('api', env());
    const worker = await startWorkerProcess('worker', env());
    procs.push(api, worker);

    // An idle keep-alive connection must not hold the shutdown open.
    const keepAlive = new Agent({ keepAlive: true, maxSockets: 8 });
    const warm = await fetch(`${api.baseUrl}/health/live`);
    expect(warm.status).toBe(200);
    await post(api.baseUrl, '/api/enroll', partner.key, { user_id: users[0], course_id: course.id, deduct_credits: false }, keepAlive);

    const outcomes: Outcome[] = [];
    let next = 1;
    const client = async (agent: Agent | false) => {
      while (next < users.length) {
        const userId = users[next++];
        const r = await post(api.baseUrl, '/api/enroll', partner.key, { user_id: userId, course_id: course.id, deduct_credits: false }, agent);
        outcomes.push({ userId, ...r, at: Date.now() });
        await sleep(15);
      }
    };
    const load = Promise.all([...Array.from({ length: 6 }, () => client(false)), ...Array.from({ length: 4 }, () => client(keepAlive))]);

    await waitFor(() => receiver.at('/slow').length >= 3, 20_000, 'deliveries in flight');
    const signalledAt = Date.now();
    const [apiExit, workerExit] = await Promise.all([api.stop('SIGTERM', 15_000), worker.stop('SIGTERM', 20_000)]);
    const apiStopMs = Date.now() - signalledAt;
    await load;
    keepAlive.destroy();

    // Both ran their shutdown hooks and then re-raised SIGTERM (Nest's enableShutdownHooks): no crash, no forced kill.
    expect(apiExit).toEqual({ code: null, signal: 'SIGTERM' });
    expect(workerExit).toEqual({ code: null, signal: 'SIGTERM' });
    expect(apiStopMs).toBeLessThan(12_000); // bounded drain, not held by keep-alive sockets
    // The worker finished the deliveries it was sending at SIGTERM before it left: each is recorded as delivered.
    const runningAtSignal = [
      ...new Set(
        receiver
          .at('/slow')
          .filter((r) => r.receivedAt < signalledAt)
          .map((r) => r.headers['x-svc-delivery'] as string),
      ),
    ];
    expect(runningAtSignal.length).toBeGreaterThan(0);
    const finished: Array<{ id: string }> = await t.db.query(`SELECT id FROM webhook_deliveries WHERE id = ANY ($1) AND status = 'delivered'`, [
      runningAtSignal,
    ]);
    expect(finished.map((r) => r.id).sort()).toEqual([...runningAtSignal].sort());

    // Every request got its full, normal response, or was refused before the service read it.
    const answered = outcomes.filter((o) => o.status !== undefined);
    const refused = outcomes.filter((o) => o.error !== undefined);
    expect(answered.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0); // the load went on past the shutdown
    expect(answered.filter((o) => o.status !== 201)).toEqual([]);
    expect(answered.filter((o) => o.at > signalledAt).length).toBeGreaterThan(0); // requests in flight at SIGTERM were answered
    expect(refused.filter((o) => !['ECONNREFUSED', 'ECONNRESET', 'EPIPE'].includes(o.error!))).toEqual([]);
    const rows: Array<{ user_id: number }> = await t.db.query('SELECT user_id FROM enrollments WHERE course_id = $1', [course.id]);
    const enrolled = new Set(rows.map((r) => r.user_id));
    // A refused request wrote nothing; an answered one was committed (no request whose work was done lost its answer).
    expect(refused.filter((o) => enrolled.has(o.userId))).toEqual([]);
    expect(answered.filter((o) => !enrolled.has(o.userId))).toEqual([]);

    // Restarted, the pair delivers everything: deliveries interrupted by the shutdown went back to the queue.
    procs.push(await startApiProcess('api-2', env()), await startWorkerProcess('worker-2', env()));
    const expected = enrolled.size;
    const received = () => new Set(receiver.at('/slow').map((r) => r.headers['x-svc-delivery'] as string));
    await waitFor(
      async () => {
        const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = $1 AND status = 'delivered'`, [
          hook.body.data.id,
        ]);
        return n === expected && received().size >= expected;
      },
      60_000,
      `${expected} deliveries delivered`,
    );
    const [{ n: events }] = await t.db.query(`SELECT count(*)::int AS n FROM events WHERE partner_id = $1 AND type = 'course.enrolled'`, [partner.partnerId]);
    expect(events).toBe(expected);
    expect(received().size).toBe(expected);
  });
});
