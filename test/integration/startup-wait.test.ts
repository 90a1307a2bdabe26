import { freePort, killAll, launchApiProcess, launchWorkerProcess } from '../support/processes';
import { TcpProxy } from '../support/tcp-proxy';

jest.setTimeout(120_000);

/**
 * Issue 26, finding 16: a worker (and the API, same start-up path) started while PostgreSQL was unreachable exited
 * with "connect ECONNREFUSED"; with nothing restarting it, deliveries waited. Both processes now wait for PostgreSQL
 * and Redis, retrying with back-off and logging each try, and are ready only once both answer. Here both are reached
 * through TCP proxies that stay closed for the first seconds.
 */
const pg = new TcpProxy('127.0.0.1', 5432);
const redis = new TcpProxy('127.0.0.1', 6379);
let env: Record<string, string>;

beforeAll(async () => {
  const [pgPort, redisPort] = [await freePort(), await freePort()];
  const db = new URL(process.env.DATABASE_URL!);
  db.port = String(pgPort);
  const rd = new URL(process.env.REDIS_URL!);
  rd.port = String(redisPort);
  pg.port = pgPort;
  redis.port = redisPort;
  env = { DATABASE_URL: db.toString(), REDIS_URL: rd.toString(), REDIS_PREFIX: `${process.env.REDIS_PREFIX}-startup` };
});
afterAll(async () => {
  await killAll();
  await Promise.all([pg.stop(), redis.stop()]);
});

async function until(check: () => boolean, ms = 40_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
}

const waitingLines = (output: string[], dependency: string) => output.filter((l) => l.includes('Waiting for') && l.includes(dependency));

describe('start-up while PostgreSQL and Redis are unreachable', () => {
  it('the API and the worker wait, log each try, and become ready once both answer', async () => {
    const api = await launchApiProcess('api-waiting', { ...env, RUN_WORKER: 'false' }, 90_000);
    const worker = launchWorkerProcess('worker-waiting', env, 90_000);
    api.ready.catch(() => undefined);
    worker.ready.catch(() => undefined);

    // Compiling the app from source takes a few seconds before the first try.
    await until(() => [api, worker].every(({ proc }) => waitingLines(proc.output, 'PostgreSQL').length >= 2 || !proc.running));
    for (const { proc } of [api, worker]) {
      expect({ name: proc.name, running: proc.running }).toEqual({ name: proc.name, running: true });
      expect(waitingLines(proc.output, 'PostgreSQL').length).toBeGreaterThanOrEqual(2);
    }
    expect(worker.proc.output.some((l) => l.includes('Worker started'))).toBe(false);

    // PostgreSQL first: still waiting for Redis.
    await pg.start(pg.port);
    const before = [api, worker].map(({ proc }) => proc.output.length);
    await until(() => [api, worker].every(({ proc }, i) => proc.output.slice(before[i]).some((l) => l.includes('Waiting for Redis')) || !proc.running));
    for (const { proc } of [api, worker]) {
      expect(proc.running).toBe(true);
      expect(waitingLines(proc.output, 'Redis').length).toBeGreaterThanOrEqual(1);
    }
    expect(worker.proc.output.some((l) => l.includes('Worker started'))).toBe(false);

    await redis.start(redis.port);
    await api.ready;
    await worker.ready;
    expect((await fetch(`${api.proc.baseUrl}/health/ready`)).status).toBe(200);
    await Promise.all([api.proc.stop(), worker.proc.stop()]);
  });
});
