import { startApp, TestApp } from '../support/app';
import { createPartner, CreatedPartner } from '../support/factories';
import { TcpProxy } from '../support/tcp-proxy';

let t: TestApp;
let partner: CreatedPartner;
const pg = new TcpProxy('127.0.0.1', 5432);
const redis = new TcpProxy('127.0.0.1', 6379);

beforeAll(async () => {
  const pgPort = await pg.start();
  const redisPort = await redis.start();
  const db = new URL(process.env.DATABASE_URL!);
  db.port = String(pgPort);
  const rd = new URL(process.env.REDIS_URL!);
  rd.port = String(redisPort);
  t = await startApp({ DATABASE_URL: db.toString(), REDIS_URL: rd.toString(), RUN_WORKER: 'false' });
  partner = await createPartner(t, { plan: 'growth' });
});
afterAll(async () => {
  await t.close();
  await Promise.all([pg.stop(), redis.stop()]);
});

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work();
  return { value, ms: Date.now() - started };
}

async function until(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('dependency faults (contract section 2: 503 fast, never hang)', () => {
  it('answers 503 service_unavailable within 2 s while Redis is down, says so in readiness, and recovers by itself', async () => {
    expect((await partner.http.get('/api/partners/me')).status).toBe(200);
    await redis.stop();
    const { value: res, ms } = await timed(() => partner.http.get('/api/partners/me'));
    expect(ms).toBeLessThan(2000);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('service_unavailable');
    expect(res.text).not.toMatch(/ECONNREFUSED|stack|Stream isn't writeable/);
    const ready = await timed(() => t.http.get('/health/ready'));
    expect(ready.ms).toBeLessThan(2000);
    expect(ready.value.status).toBe(503);
    expect(ready.value.body.checks.redis.status).toBe('down');
    expect(ready.value.body.checks.postgres.status).toBe('up');

    await redis.start();
    await until(async () => (await partner.http.get('/api/partners/me')).status === 200);
    expect((await t.http.get('/health/ready')).status).toBe(200);
  });

  it('answers 503 service_unavailable within 2 s while PostgreSQL is down, and recovers by itself', async () => {
    expect((await partner.http.get('/api/partners/me')).status).toBe(200);
    await pg.stop();
    const { value: res, ms } = await timed(() => partner.http.get('/api/partners/me'));
    expect(ms).toBeLessThan(2000);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('service_unavailable');
    const ready = await timed(() => t.http.get('/health/ready'));
    expect(ready.ms).toBeLessThan(2000);
    expect(ready.value.status).toBe(503);
    expect(ready.value.body.checks.postgres.status).toBe('down');

    await pg.start();
    await until(async () => (await partner.http.get('/api/partners/me')).status === 200);
    expect((await t.http.get('/health/ready')).status).toBe(200);
  });
});
