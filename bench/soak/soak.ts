import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { runMigrations } from '../../src/database/data-source';
import { dropDatabase, ensureDatabase } from '../../src/database/ensure-database';
import { createCourse } from '../../test/support/factories';
import { ServiceProcess, startApiProcess, startWorkerProcess } from '../../test/support/processes';
import { RedisServer } from '../../test/support/redis-server';
import { TcpProxy } from '../../test/support/tcp-proxy';
import { Faults, idempotencyCheck, quotaCheck } from './faults';
import { acknowledgedChecks, Check, dataChecks, deliveryChecks } from './invariants';
import { Behaviour, SoakReceiver } from './receivers';
import { newStats, SoakCourse, VirtualUser } from './traffic';

/**
 * Soak test of the scale-out topology: two API processes and two workers on one PostgreSQL and Redis, many
 * partners doing mixed traffic, webhook receivers that are slow, flaky or down for a while, and faults in the middle:
 * PostgreSQL stopped and later frozen (through a TCP proxy every service process connects through), Redis emptied
 * (FLUSHDB) while deliveries are queued and later frozen (SIGSTOP; Redis is a private redis-server of the run), one
 * worker killed (SIGKILL) and restarted. Then every invariant is checked and one table printed; exit code 1 on a failure.
 *
 *   npm run soak                       (SOAK_SECONDS=90 of traffic, then up to 120 s for the queue to drain)
 *   SOAK_SECONDS=60 SOAK_PARTNERS=6 npm run soak
 */
const SECONDS = Number(process.env.SOAK_SECONDS ?? 90);
const PARTNERS = Number(process.env.SOAK_PARTNERS ?? 8);
const VUS_PER_PARTNER = Number(process.env.SOAK_VUS ?? 2);
const DRAIN_TIMEOUT_MS = 120_000;
const SENDER_TIMEOUT_MS = 2000;
const OUTAGE_MS = 15_000;
const PG_OUTAGE_MS = Number(process.env.SOAK_PG_OUTAGE_MS ?? 12_000);
const FREEZE_MS = 5000;
const REQUEST_TIMEOUT_MS = 5000;
// The load generator shares the 2 cores with the whole topology: its own measurement adds this much at worst.
const CLIENT_SLACK_MS = 1000;
const BEHAVIOURS: Behaviour[] = ['fast', 'slow', 'flaky', 'outage'];
const EVENT_SETS = [
  [
    'user.registered',
    'course.enrolled',
    'course.progress',
    'course.completed',
    'certificate.issued',
    'credits.purchased',
    'webinar.started',
    'webinar.joined',
    'webinar.ended',
  ],
  ['course.completed', 'certificate.issued'],
  ['credits.purchased', 'course.enrolled'],
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (bytes: number) => `${Math.round(bytes / 1048576)} MB`;

function rssOf(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmRSS:'));
    return Number(line?.match(/(\d+)/)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const run = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const dbUrl = new URL(process.env.SOAK_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  dbUrl.pathname = `/partner_api_soak_${run}`;
  // A private Redis (emptied and frozen by the run) and a proxy in front of PostgreSQL for the service processes.
  const redis = await RedisServer.start();
  const pgProxy = new TcpProxy(dbUrl.hostname, Number(dbUrl.port || 5432));
  const proxiedDbUrl = new URL(dbUrl);
  proxiedDbUrl.hostname = '127.0.0.1';
  proxiedDbUrl.port = String(await pgProxy.start());
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    DATABASE_URL: dbUrl.toString(),
    REDIS_URL: redis.url,
    REDIS_PREFIX: `pa-soak-${run}`,
    PUBLIC_BASE_URL: 'http://localhost:3999',
    RUN_WORKER: 'false',
    AUTO_MIGRATE: 'false',
    LOAD_DEMO_CATALOGUE: 'false',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    // About 40 s of retries: longer than the receiver outage, short enough to drain within the run.
    WEBHOOK_RETRY_DELAYS_MS: '500,1000,2000,4000,8000,8000,8000,8000',
    WEBHOOK_TIMEOUT_MS: String(SENDER_TIMEOUT_MS),
    REGISTRATION_LIMIT_PER_HOUR: '100000',
    DATABASE_POOL_SIZE: '10',
    REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    // Shorter than the 30 s default so that the queue drains within the run after Redis is emptied.
    WEBHOOK_SWEEP_INTERVAL_MS: '5000',
  };
  const faults = new Faults(pgProxy, redis, env.REDIS_PREFIX);
  Object.assign(process.env, env, { LOG_LEVEL: 'silent' });
  await ensureDatabase(env.DATABASE_URL);
  await runMigrations(env.DATABASE_URL);
  const { AppModule } = await import('../../src/app.module');
  const { PartnersService } = await import('../../src/partners/partners.service');
  const ctx = await NestFactory.createApplicationContext(AppModule.register({ api: false, worker: false }), { logger: false });
  const db = ctx.get(DataSource);
  const procs: ServiceProcess[] = [];
  const receivers = BEHAVIOURS.map((b) => new SoakReceiver(b, SENDER_TIMEOUT_MS));
  let failed = true;
  try {
    await Promise.all(receivers.map((r) => r.start()));
    const courses: SoakCourse[] = [];
    for (let i = 0; i < 6; i++) {
      const { course, topics } = await createCourse(db, {
        title: `Soak course ${i}`,
        creditCost: [0, 10, 25][i % 3],
        topics: [false, true, false].slice(0, 2 + (i % 2)),
      });
      courses.push({ id: course.id, creditCost: course.creditCost, topics: topics.map((t) => ({ id: t.id, hasQuiz: t.hasQuiz })) });
    }

    const apiEnv = { ...env, DATABASE_URL: proxiedDbUrl.toString(), LOG_LEVEL: 'warn' };
    const workerEnv = { ...env, DATABASE_URL: proxiedDbUrl.toString(), LOG_LEVEL: 'info' };
    const [api1, api2, w1, w2] = await Promise.all([
      startApiProcess('api-1', apiEnv, 120_000),
      startApiProcess('api-2', apiEnv, 120_000),
      startWorkerProcess('worker-1', workerEnv, 120_000),
      startWorkerProcess('worker-2', workerEnv, 120_000),
    ]);
    procs.push(api1, api2, w1, w2);
    const apis = [api1.baseUrl, api2.baseUrl];
    console.log(`topology up in ${((Date.now() - started) / 1000).toFixed(1)} s: ${apis.join(', ')}, 2 workers; ${SECONDS} s of traffic`);

    // Partners (mostly enterprise, some growth), each with one or two subscriptions on differently behaved receivers.
    const partners = [];
    const partnerOfKey = new Map<string, number>();
    const secrets = new Map<string, string>();
    for (let i = 0; i < PARTNERS; i++) {
      const created = await ctx
        .get(PartnersService)
        .create({ name: `Soak partner ${i}`, email: `soak-${i}-${run}@example.com`, plan: i % 4 === 3 ? 'growth' : 'enterprise', mode: 'test' });
      const key = created.api_key.key;
      partnerOfKey.set(key, created.partner.id);
      for (let s = 0; s < (i % 2 ? 2 : 1); s++) {
        const secret = randomBytes(16).toString('hex');
        const receiver = receivers[(i + s) % receivers.length];
        const res = await fetch(`${apis[0]}/api/connect/webhooks`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ url: receiver.url, events: EVENT_SETS[(i + s) % EVENT_SETS.length], secret }),
        });
        const body = (await res.json()) as { data: { id: string } };
        if (res.status !== 201) throw new Error(`subscription failed: ${JSON.stringify(body)}`);
        secrets.set(body.data.id, secret);
      }
      partners.push(key);
    }

    // Memory: sampled every 2 s; the baseline is taken once the processes are warm.
    const rss = new Map<string, number[]>();
    const sampler = setInterval(() => {
      for (const p of procs) if (p.running) rss.set(p.name, [...(rss.get(p.name) ?? []), rssOf(p.pid)]);
    }, 2000);

    const stats = newStats();
    const until = Date.now() + SECONDS * 1000;
    // Traffic runs for SOAK_SECONDS, and on until the last fault is over (a busy machine can delay them).
    let faultsOver = false;
    const running = () => Date.now() < until || !faultsOver;
    const load = Promise.all(partners.flatMap((key) => Array.from({ length: VUS_PER_PARTNER }, () => new VirtualUser(apis, key, courses, stats).run(running))));

    // Faults in the middle of the run, at fixed fractions of it: PostgreSQL stopped; a receiver down for a while;
    // Redis emptied while that receiver's retries wait in the queue; a worker killed and restarted; Redis frozen;
    // PostgreSQL frozen.
    const t0 = until - SECONDS * 1000;
    const at = (fraction: number) => sleep(Math.max(0, t0 + SECONDS * 1000 * fraction - Date.now()));
    const log = (what: string) => console.log(`${Math.round((Date.now() - t0) / 1000)} s: ${what}`);
    const killAt = SECONDS * 500;
    const faultRun = (async () => {
      await at(0.1);
      log(`PostgreSQL stopped for ${PG_OUTAGE_MS / 1000} s`);
      const pgDown = faults.postgresOutage(PG_OUTAGE_MS);
      await at(0.25);
      const outage = receivers.find((r) => r.behaviour === 'outage')!.outage(OUTAGE_MS);
      await pgDown;
      await at(0.4);
      await faults.redisWipe();
      log('Redis emptied (FLUSHDB)');
      await at(0.5);
      await w1.kill();
      log('worker-1 killed (SIGKILL)');
      const restart = sleep(3000)
        .then(() => startWorkerProcess('worker-1b', workerEnv, 120_000))
        .then((w1b) => {
          procs.push(w1b);
          log('worker-1 restarted');
        });
      await at(0.65);
      log(`Redis frozen for ${FREEZE_MS / 1000} s`);
      await faults.redisFreeze(FREEZE_MS);
      await at(0.8);
      log(`PostgreSQL frozen for ${FREEZE_MS / 1000} s`);
      await faults.postgresFreeze(FREEZE_MS);
      await Promise.all([outage, restart]);
    })().finally(() => (faultsOver = true));
    const warmRss = (async () => {
      await sleep(Math.min(20_000, SECONDS * 200));
      return new Map([...rss].map(([name, xs]) => [name, xs[xs.length - 1]]));
    })();
    await Promise.all([load, faultRun]);
    const baseline = await warmRss;
    const trafficEnd = Date.now();
    const trafficSeconds = Math.round((trafficEnd - t0) / 1000);

    // Drain: every event dispatched and no delivery left pending.
    let backlog = { pending: -1, undispatched: -1 };
    while (Date.now() - trafficEnd < DRAIN_TIMEOUT_MS) {
      const [row] = await db.query(
        `SELECT (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending')::int AS pending, (SELECT count(*) FROM events_undispatched)::int AS undispatched`,
      );
      backlog = row;
      if (row.pending === 0 && row.undispatched === 0) break;
      await sleep(1000);
    }
    const drainMs = Date.now() - trafficEnd;
    clearInterval(sampler);
    await sleep(3000); // the APIs' last usage flush
    const quotaAtEnd = await faults.quotaCounters();
    const idempotency = await idempotencyCheck(stats, apis, faults.wipe?.at);

    const checks: Check[] = [];
    const requests = [...stats.byRoute.values()].reduce((n, r) => n + r.count, 0);
    checks.push({
      name: 'requests',
      value: `${requests} in ${trafficSeconds} s (${Math.round(requests / trafficSeconds)}/s) over 2 APIs, ${partners.length * VUS_PER_PARTNER} clients`,
      ok: requests > 0,
    });
    for (const [route, r] of [...stats.byRoute].sort()) {
      const statuses = [...r.statuses]
        .sort()
        .map(([s, n]) => `${s}×${n}`)
        .join(' ');
      checks.push({
        name: `  ${route}`,
        value: `${statuses}; avg ${Math.round(r.totalMs / r.count)} ms, max ${Math.round(r.maxMs)} ms`,
        ok: ![...r.statuses.keys()].some((s) => s >= 500 && s !== 503),
      });
    }
    const graceMs = REQUEST_TIMEOUT_MS + 3000;
    const not503 = stats.serverErrors.filter((e) => e.status !== 503);
    const stray503 = stats.serverErrors.filter((e) => e.status === 503 && !faults.affected(e.at, REQUEST_TIMEOUT_MS, graceMs));
    const slowest = Math.max(...[...stats.byRoute.values()].map((r) => r.maxMs));
    checks.push({
      name: 'no 500 (or other 5xx but 503)',
      value: `${not503.length} (${not503
        .slice(0, 2)
        .map((e) => `${e.route} ${e.status} ${e.body}`)
        .join(' | ')})`,
      ok: not503.length === 0,
    });
    checks.push({
      name: '503 only while a dependency is down or frozen',
      value: `${stats.serverErrors.length - not503.length} × 503, ${stray503.length} outside the faults (−${REQUEST_TIMEOUT_MS / 1000} s, +${graceMs / 1000} s)${stray503
        .slice(0, 3)
        .map((e) => ` | ${e.route} at ${((e.at - t0) / 1000).toFixed(1)} s: ${e.body.slice(0, 120)}`)
        .join('')}`,
      ok: stray503.length === 0,
    });
    // What the API logged about a stray 503 (its request id), to tell which dependency failed.
    for (const e of stray503.slice(0, 3)) {
      const id = /"request_id":"([^"]+)"/.exec(e.body)?.[1];
      for (const p of procs) for (const line of p.output) if (id && line.includes(id)) console.log(`${p.name}: ${line.slice(0, 600)}`);
    }
    checks.push({
      name: 'no request over REQUEST_TIMEOUT_MS',
      value: `slowest answer ${Math.round(slowest)} ms (bound ${REQUEST_TIMEOUT_MS} ms + ${CLIENT_SLACK_MS} ms client slack)`,
      ok: slowest <= REQUEST_TIMEOUT_MS + CLIENT_SLACK_MS,
    });
    checks.push({ name: 'no network errors', value: `${stats.networkErrors}`, ok: stats.networkErrors === 0 });
    checks.push({ name: 'no negative credits_remaining seen', value: `${stats.negativeBalances}`, ok: stats.negativeBalances === 0 });
    checks.push({
      name: 'queue drained',
      value: `${backlog.pending} pending, ${backlog.undispatched} undispatched, after ${(drainMs / 1000).toFixed(1)} s`,
      ok: backlog.pending === 0 && backlog.undispatched === 0,
    });
    checks.push(...(await acknowledgedChecks(db, stats.acknowledged)));
    checks.push(quotaCheck(stats, faults.wipe, quotaAtEnd, partnerOfKey));
    checks.push(idempotency);
    checks.push(...(await dataChecks(db)));
    checks.push(...(await deliveryChecks(db, receivers, secrets)));
    for (const name of ['api-1', 'api-2', 'worker-2']) {
      const xs = rss.get(name) ?? [];
      const base = baseline.get(name) ?? xs[0] ?? 0;
      const end = xs[xs.length - 1] ?? 0;
      const max = Math.max(0, ...xs);
      // Stable: the end of the run is within 50% (+32 MB of slack) of the warm baseline.
      checks.push({ name: `RSS ${name}`, value: `warm ${mb(base)}, end ${mb(end)}, max ${mb(max)}`, ok: end <= base * 1.5 + 32 * 1048576 });
    }
    checks.push({
      name: 'faults',
      value: `${faults.describe(t0)}; receiver outage ${OUTAGE_MS / 1000} s at ${SECONDS * 0.25} s; worker-1 SIGKILL at ${killAt / 1000} s`,
      ok: true,
    });

    printTable(checks, (Date.now() - started) / 1000);
    failed = checks.some((c) => !c.ok);
  } finally {
    redis.thaw();
    pgProxy.resume();
    await Promise.all(procs.map((p) => p.stop('SIGTERM', 20_000).catch(() => p.kill())));
    await Promise.all(receivers.map((r) => r.stop()));
    await ctx.close();
    await Promise.all([pgProxy.stop(), redis.stop()]);
    if (process.env.SOAK_KEEP_DB !== 'true') await dropDatabase(env.DATABASE_URL).catch(() => undefined);
  }
  process.exit(failed ? 1 : 0);
}

function printTable(checks: Check[], seconds: number): void {
  const w = Math.max(...checks.map((c) => c.name.length));
  const line = '-'.repeat(w + 80);
  console.log(`\nSoak summary (${seconds.toFixed(0)} s wall clock)\n${line}`);
  for (const c of checks) console.log(`${c.ok ? 'ok  ' : 'FAIL'}  ${c.name.padEnd(w)}  ${c.value}`);
  console.log(`${line}\n${checks.every((c) => c.ok) ? 'ALL INVARIANTS HOLD' : 'INVARIANT VIOLATED'}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
