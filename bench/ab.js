'use strict';
/**
 * A/B of two builds of the service on one request kind, for a machine too busy for rates to mean much: both builds
 * run at once on one scratch database, each started the same way and warmed up the same, and are measured in
 * alternated rounds; the medians of CPU per request (service, PostgreSQL's backends) are what compare.
 * Run `npm run build` in both checkouts first, then: `BENCH_AB=/path/to/other/checkout node bench/ab.js`.
 *
 * Environment: BENCH_AB (the other built checkout, measured as "before"; this one is "after"), BENCH_AB_KIND
 * (`catalogue`: GET /api/courses?limit=20, the default; `enroll`: POST /api/enroll, a distinct learner per request into
 * one hot course; `topup`: POST /api/credits/topup, a distinct learner and a new payment reference per request),
 * BENCH_ROUNDS (5), BENCH_DURATION (6 s a run), BENCH_WARMUP (20 s per build), BENCH_CONNECTIONS (50 for the
 * catalogue, 32 for enrolments and top-ups), BENCH_AB_DATABASES (`shared`, the default; `separate`: each build
 * migrates and seeds a database of its own, `<scratch>_before` for the other build, for a change of schema the other
 * build cannot run on; both databases' backends count as PostgreSQL's, as only one build is loaded at a time), and
 * those of bench/lib.js.
 */
const { join } = require('node:path');
const autocannon = require('autocannon');
const { cli, cpuMeter, databaseUrl, extraDatabases, freePort, MAIN, ROOT, runBench, seedCourseAndLearners, serviceEnv, sql, start, waitFor } = require('./lib');

const OTHER = process.env.BENCH_AB;
const KIND = process.env.BENCH_AB_KIND ?? 'catalogue';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const DURATION = Number(process.env.BENCH_DURATION ?? 6);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 20);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? (KIND === 'catalogue' ? 50 : 32));
const SEPARATE = process.env.BENCH_AB_DATABASES === 'separate';
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  if (!OTHER) throw new Error('BENCH_AB must name another built checkout');
  const builds = [
    { name: 'before (BENCH_AB)', main: join(OTHER, 'dist', 'src', 'main.js'), runs: [], url: databaseUrl, env: {} },
    { name: 'after (this checkout)', main: MAIN, runs: [], url: databaseUrl, env: {} },
  ];
  if (SEPARATE) {
    const url = new URL(databaseUrl);
    url.pathname += '_before';
    builds[0].url = url.toString();
    extraDatabases.push(url.pathname.slice(1));
    // Two deployments: Redis keys (key cache, limits, queues) of one must not answer for the other's database.
    builds[0].env = { DATABASE_URL: builds[0].url, REDIS_PREFIX: `${serviceEnv(0).REDIS_PREFIX}-before` };
  }
  // Each database is migrated by the build that runs on it (the other build runs it with AUTO_MIGRATE=false).
  const seeded = new Map();
  for (const b of SEPARATE ? builds : [builds[1]]) {
    const seedPort = await freePort();
    const env = (extra) => serviceEnv(seedPort, { ...b.env, ...extra });
    const seeder = start('seeding service', b.main, env({ LOAD_DEMO_CATALOGUE: 'true' }));
    await waitFor(`http://127.0.0.1:${seedPort}/health/ready`, seeder);
    const partner = await cli(['partner', 'create', '--name', 'Bench', '--email', 'bench@example.com', '--plan', 'enterprise'], env({ AUTO_MIGRATE: 'false' }));
    // The enterprise limit (500 req/s per key) would throttle autocannon; raised in this scratch database only.
    await sql(`UPDATE plans SET rate_limit_per_second = 1000000 WHERE code = 'enterprise'`, [], b.url);
    seeder.stopping = true;
    seeder.kill('SIGTERM');
    await new Promise((r) => (seeder.exitCode === null && seeder.signalCode === null ? seeder.once('exit', r) : r()));
    let request = { method: 'GET', path: '/api/courses?limit=20' };
    if (KIND === 'enroll' || KIND === 'topup') {
      const { courseId, users } = await seedCourseAndLearners(
        partner.partner_id ?? partner.id,
        { learners: 150_000, cost: 5, credits: 20, title: 'Hot course' },
        b.url,
      );
      let next = 0;
      const body = () => {
        if (next >= users.length) throw new Error('out of learners');
        const userId = users[next++].id;
        return JSON.stringify(
          KIND === 'enroll' ? { user_id: userId, course_id: courseId } : { user_id: userId, amount: 3, source: 'bench', reference: `ab-${next}` },
        );
      };
      const path = KIND === 'enroll' ? '/api/enroll' : '/api/credits/topup';
      request = { method: 'POST', path, setupRequest: (req) => ({ ...req, body: body() }) };
    }
    seeded.set(b.url, { headers: { 'X-API-Key': partner.api_key, 'Content-Type': 'application/json' }, request });
  }
  for (const b of builds) {
    Object.assign(b, seeded.get(b.url));
    b.port = await freePort();
    b.child = start(b.name, b.main, serviceEnv(b.port, { ...b.env, AUTO_MIGRATE: 'false' }));
    await waitFor(`http://127.0.0.1:${b.port}/health/ready`, b.child);
  }
  const measure = (b, duration) =>
    new Promise((resolve, reject) => {
      autocannon({ url: `http://127.0.0.1:${b.port}`, connections: CONNECTIONS, duration, headers: b.headers, requests: [b.request] }, (err, r) =>
        err ? reject(err) : resolve(r),
      );
    });
  for (const b of builds) await measure(b, WARMUP);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const b of round % 2 ? builds : [...builds].reverse()) {
      const cpu = cpuMeter(b.child.pid);
      const r = await measure(b, DURATION);
      if (r.non2xx || r.errors) throw new Error(`${b.name}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
      const c = cpu.per(r.requests.total);
      b.runs.push({ rps: r.requests.average, p99: r.latency.p99, service: c.service, backends: c.backends, server: c.server });
      process.stderr.write(
        `round ${round} ${b.name}: ${r.requests.average.toFixed(0)} req/s, p99 ${r.latency.p99} ms, CPU/request service ${c.service.toFixed(3)} + PostgreSQL backends ${c.backends.toFixed(3)} + PostgreSQL's own processes ${c.server.toFixed(3)} ms\n`,
      );
    }
  }
  const lines = [
    `${KIND}: ${SEPARATE ? 'a database per build, ' : ''}${CONNECTIONS} connections, ${DURATION} s × ${ROUNDS} alternated rounds (medians), ${ROOT} against ${OTHER}`,
  ];
  for (const b of builds) {
    const m = (k) => median(b.runs.map((r) => r[k]));
    lines.push(
      `${b.name.padEnd(24)} ${m('rps').toFixed(0)} req/s, p99 ${m('p99')} ms, CPU/request service ${m('service').toFixed(3)} + PostgreSQL backends ${m('backends').toFixed(3)} + PostgreSQL's own processes ${m('server').toFixed(3)} ms`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

runBench(main);
