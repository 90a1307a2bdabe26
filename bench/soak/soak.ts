import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { runMigrations } from '../../src/database/data-source';
import { dropDatabase, ensureDatabase } from '../../src/database/ensure-database';
import { createCourse } from '../../test/support/factories';
import { ServiceProcess, startApiProcess, startWorkerProcess } from '../../test/support/processes';
import { Check, dataChecks, deliveryChecks } from './invariants';
import { Behaviour, SoakReceiver } from './receivers';
import { newStats, SoakCourse, VirtualUser } from './traffic';

/**
 * Soak test of the scale-out topology: two API processes and two workers on one PostgreSQL and Redis, many
 * partners doing mixed traffic, webhook receivers that are slow, flaky or down for a while, and one worker killed
 * (SIGKILL) and restarted mid-run. Then every invariant is checked and one table printed; exit code 1 on a failure.
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
const BEHAVIOURS: Behaviour[] = ['fast', 'slow', 'flaky', 'outage'];
const EVENT_SETS = [
  ['user.registered', 'course.enrolled', 'course.progress', 'course.completed', 'certificate.issued', 'credits.purchased', 'webinar.started', 'webinar.joined', 'webinar.ended'],
  ['course.completed', 'certificate.issued'],
  ['credits.purchased', 'course.enrolled'],
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (bytes: number) => `${Math.round(bytes / 1048576)} MB`;

function rssOf(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
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
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    DATABASE_URL: dbUrl.toString(),
    REDIS_URL: process.env.SOAK_REDIS_URL ?? process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0',
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
  };
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
      const { course, topics } = await createCourse(db, { title: `Soak course ${i}`, creditCost: [0, 10, 25][i % 3], topics: [false, true, false].slice(0, 2 + (i % 2)) });
      courses.push({ id: course.id, creditCost: course.creditCost, topics: topics.map((t) => ({ id: t.id, hasQuiz: t.hasQuiz })) });
    }

    const apiEnv = { ...env, LOG_LEVEL: 'warn' };
    const workerEnv = { ...env, LOG_LEVEL: 'info' };
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
    const secrets = new Map<string, string>();
    for (let i = 0; i < PARTNERS; i++) {
      const created = await ctx.get(PartnersService).create({ name: `Soak partner ${i}`, email: `soak-${i}-${run}@example.com`, plan: i % 4 === 3 ? 'growth' : 'enterprise', mode: 'test' });
      const key = created.api_key.key;
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
    const load = Promise.all(partners.flatMap((key) => Array.from({ length: VUS_PER_PARTNER }, () => new VirtualUser(apis, key, courses, stats).run(until))));

    // Faults in the middle of the run: one receiver down for a while, then a worker killed and restarted.
    const outageAt = SECONDS * 250;
    const killAt = SECONDS * 500;
    const faults = (async () => {
      await sleep(outageAt);
      const outage = receivers.find((r) => r.behaviour === 'outage')!.outage(OUTAGE_MS);
      await sleep(killAt - outageAt);
      await w1.kill();
      console.log(`worker-1 killed (SIGKILL) at ${Math.round((Date.now() - (until - SECONDS * 1000)) / 1000)} s`);
      await sleep(3000);
      const w1b = await startWorkerProcess('worker-1b', workerEnv, 120_000);
      procs.push(w1b);
      console.log('worker-1 restarted');
      await outage;
    })();
    const warmRss = (async () => {
      await sleep(Math.min(20_000, SECONDS * 200));
      return new Map([...rss].map(([name, xs]) => [name, xs[xs.length - 1]]));
    })();
    await Promise.all([load, faults]);
    const baseline = await warmRss;
    const trafficEnd = Date.now();

    // Drain: every event dispatched and no delivery left pending.
    let backlog = { pending: -1, undispatched: -1 };
    while (Date.now() - trafficEnd < DRAIN_TIMEOUT_MS) {
      const [row] = await db.query(
        `SELECT (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending')::int AS pending, (SELECT count(*) FROM events WHERE dispatched_at IS NULL)::int AS undispatched`,
      );
      backlog = row;
      if (row.pending === 0 && row.undispatched === 0) break;
      await sleep(1000);
    }
    const drainMs = Date.now() - trafficEnd;
    clearInterval(sampler);

    const checks: Check[] = [];
    const requests = [...stats.byRoute.values()].reduce((n, r) => n + r.count, 0);
    const trafficSeconds = SECONDS;
    checks.push({ name: 'requests', value: `${requests} in ${trafficSeconds} s (${Math.round(requests / trafficSeconds)}/s) over 2 APIs, ${partners.length * VUS_PER_PARTNER} clients`, ok: requests > 0 });
    for (const [route, r] of [...stats.byRoute].sort()) {
      const statuses = [...r.statuses].sort().map(([s, n]) => `${s}×${n}`).join(' ');
      checks.push({ name: `  ${route}`, value: `${statuses}; avg ${Math.round(r.totalMs / r.count)} ms, max ${Math.round(r.maxMs)} ms`, ok: ![...r.statuses.keys()].some((s) => s >= 500) });
    }
    checks.push({ name: 'no 5xx responses', value: `${stats.serverErrors.length} (${stats.serverErrors.slice(0, 2).map((e) => `${e.route} ${e.status} ${e.body}`).join(' | ')})`, ok: stats.serverErrors.length === 0 });
    checks.push({ name: 'no network errors', value: `${stats.networkErrors}`, ok: stats.networkErrors === 0 });
    checks.push({ name: 'no negative credits_remaining seen', value: `${stats.negativeBalances}`, ok: stats.negativeBalances === 0 });
    checks.push({ name: 'queue drained', value: `${backlog.pending} pending, ${backlog.undispatched} undispatched, after ${(drainMs / 1000).toFixed(1)} s`, ok: backlog.pending === 0 && backlog.undispatched === 0 });
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
    checks.push({ name: 'worker killed and restarted', value: `worker-1 SIGKILL at ${killAt / 1000} s, receiver outage ${OUTAGE_MS / 1000} s at ${outageAt / 1000} s`, ok: true });

    printTable(checks, (Date.now() - started) / 1000);
    failed = checks.some((c) => !c.ok);
  } finally {
    await Promise.all(procs.map((p) => p.stop('SIGTERM', 20_000).catch(() => p.kill())));
    await Promise.all(receivers.map((r) => r.stop()));
    await ctx.close();
    if (process.env.SOAK_KEEP_DB !== 'true') {
      await dropDatabase(env.DATABASE_URL).catch(() => undefined);
      const redis = new Redis(env.REDIS_URL);
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${env.REDIS_PREFIX}*`, 'COUNT', 1000);
        if (keys.length) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
      redis.disconnect();
    }
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
