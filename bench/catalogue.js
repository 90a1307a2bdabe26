'use strict';
/**
 * Catalogue benchmark (issues 2, 3 and 16). Run `npm run build` first, then `npm run bench:catalogue`.
 *
 * Starts, against a scratch PostgreSQL database it creates (and drops afterwards) loaded with the real demo catalogue:
 *   - keyed:     the built service (dist/src/main.js), called with an enterprise key: guard, rate limit and quota active;
 *   - keyed 304: the same calls sending the ETag back in If-None-Match (still keyed, counted and rate-limited);
 *   - unguarded: the same build with BENCH_DISABLE_AUTH=true (the guard lets catalogue reads through: the call as it was
 *                before API keys existed);
 *   - bare:      bench/bare-app.js, a bare NestJS + Express app answering the very same JSON body;
 *   - base:      with BENCH_BASE_ROOT=<a built checkout of another version>, that build's service, keyed, on the same
 *                database: before and after in one run.
 * Then measures `GET /api/courses?limit=20` on each with autocannon (50 connections), ROUNDS times interleaved,
 * and prints medians of req/s and p50/p99 latency with the ratios and the targets
 * (issue 30: keyed ≥ 0.75 × bare with LOG_LEVEL=info, keyed p99 ≤ 25 ms), and beside them a keyed course detail
 * and a keyed search for their CPU per request. Every run prints CPU per request of the service, PostgreSQL's backends
 * of the scratch database and autocannon (this process), from /proc, and, from inside the served process
 * (bench/service-probe.js), its event loop's delay and its GC pauses per request.
 *
 * Environment: BENCH_DATABASE_URL (an admin connection, default postgres://postgres@127.0.0.1:5432/postgres),
 * BENCH_REDIS_URL (default redis://127.0.0.1:6379/0), BENCH_DURATION seconds per run (10), BENCH_ROUNDS (3),
 * BENCH_CONNECTIONS (50), BENCH_LOG_LEVEL of the service (info: request logs on, as in production, written to /dev/null),
 * BENCH_RUN_WARMUP (seconds of unmeasured load right before each measured run, 0), BENCH_PROBE_REQUESTS=true (the probe
 * also times each request inside the served process, see bench/service-probe.js).
 */
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const autocannon = require('autocannon');
const { cli, cpuMeter, dbName, freePort, MAIN, probeEnv, readProbe, runBench, serviceEnv, sql, start, waitFor, requireBuild } = require('./lib');

const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const BASE_ROOT = process.env.BENCH_BASE_ROOT;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
// Seconds of unmeasured load right before each measured run (0: none). The targets rotate, so a process may have been
// idle for a run or two before its turn; this tells whether that changes its CPU per request.
const RUN_WARMUP = Number(process.env.BENCH_RUN_WARMUP ?? 0);
const PATH = '/api/courses?limit=20';
const tmp = mkdtempSync(join(tmpdir(), 'pa-bench-'));

function measure(url, headers, duration = DURATION, status = 200, body) {
  return new Promise((resolve, reject) => {
    const post = body === undefined ? {} : { method: 'POST', body, headers: { ...headers, 'Content-Type': 'application/json' } };
    autocannon({ url, connections: CONNECTIONS, duration, headers, ...post }, (err, r) => {
      if (err) return reject(err);
      // autocannon counts 304 as non-2xx: a run expecting 304 counts those as good.
      const good = status === 304 ? (r.statusCodeStats?.['304']?.count ?? 0) : r['2xx'];
      resolve({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, bad: r.requests.total - good, total: r.requests.total });
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** What bench/service-probe.js saw in the served process during a run: loop delay, and GC per request. */
function inside(probe, requests) {
  if (!probe) return null;
  const kinds = Object.values(probe.gc);
  return {
    loopP99: probe.loopDelayMs.p99,
    loopMax: probe.loopDelayMs.max,
    gcPerRequest: kinds.reduce((sum, g) => sum + g.ms, 0) / requests,
    gcMax: Math.max(0, ...kinds.map((g) => g.maxMs)),
    majors: probe.gc.major?.count ?? 0,
    majorMax: probe.gc.major?.maxMs ?? 0,
    minorsPer1000: ((probe.gc.minor?.count ?? 0) * 1000) / requests,
    requests: probe.requests,
  };
}

const describeInside = (i) =>
  i
    ? `loop delay p99 ${i.loopP99.toFixed(1)} / max ${i.loopMax.toFixed(1)} ms, GC ${i.gcPerRequest.toFixed(3)} ms/request (${i.minorsPer1000.toFixed(1)} minor per 1,000 requests, ${i.majors} major, longest pause ${i.gcMax.toFixed(1)} ms, longest major ${i.majorMax.toFixed(1)} ms)${
        i.requests
          ? `; in the process p50 ${i.requests.p50Ms.toFixed(2)} / p99 ${i.requests.p99Ms.toFixed(2)} / max ${i.requests.maxMs.toFixed(1)} ms, ${i.requests.meanInFlight.toFixed(1)} requests in the process on arrival`
          : ''
      }`
    : 'no probe';

async function main() {
  requireBuild();
  const [keyedPort, openPort, barePort] = [await freePort(), await freePort(), await freePort()];
  process.stderr.write(`scratch database ${dbName}; loading the demo catalogue…\n`);
  const keyed = start('keyed service', MAIN, probeEnv(serviceEnv(keyedPort, { LOAD_DEMO_CATALOGUE: 'true' })));
  await waitFor(`http://127.0.0.1:${keyedPort}/health/ready`, keyed);

  const partner = await cli(['partner', 'create', '--name', 'Bench', '--email', 'bench@example.com', '--plan', 'enterprise'], serviceEnv(keyedPort));
  // The enterprise limit (500 req/s per key) would throttle autocannon; raised in this scratch database only.
  await sql(`UPDATE plans SET rate_limit_per_second = 1000000 WHERE code = 'enterprise'`);
  const rows = await sql('SELECT count(*)::int AS n FROM courses WHERE published');

  const open = start(
    'unguarded service',
    MAIN,
    probeEnv(serviceEnv(openPort, { AUTO_MIGRATE: 'false', LOAD_DEMO_CATALOGUE: 'false', BENCH_DISABLE_AUTH: 'true' })),
  );
  await waitFor(`http://127.0.0.1:${openPort}/health/ready`, open);

  const keyHeaders = { 'X-API-Key': partner.api_key };
  const first = await fetch(`http://127.0.0.1:${keyedPort}${PATH}`, { headers: keyHeaders });
  const body = await first.text();
  if (first.status !== 200) throw new Error(`keyed call failed: ${first.status} ${body.slice(0, 300)}`);
  if (!first.headers.get('ratelimit')) throw new Error('keyed call carries no RateLimit header: is the guard active?');
  const openBody = await (await fetch(`http://127.0.0.1:${openPort}${PATH}`)).text();
  // The two services build their own URLs from their own ports; the bodies differ only there.
  const bodyFile = join(tmp, 'body.json');
  writeFileSync(bodyFile, body);
  const bare = start('bare app', join(__dirname, 'bare-app.js'), probeEnv({ ...process.env, PORT: String(barePort), BARE_BODY_FILE: bodyFile }));
  await waitFor(`http://127.0.0.1:${barePort}/bare`, bare);
  const bareBody = await (await fetch(`http://127.0.0.1:${barePort}/bare`)).text();
  process.stderr.write(
    `${rows[0].n} published courses; body ${Buffer.byteLength(body)} B (bare ${Buffer.byteLength(bareBody)} B, unguarded ${Buffer.byteLength(openBody)} B)\n`,
  );

  const [course] = await sql('SELECT id FROM courses WHERE published ORDER BY id LIMIT 1');
  const etag = first.headers.get('etag');
  if (!etag) throw new Error('the catalogue sent no ETag');
  const targets = [
    { name: 'bare NestJS+Express', url: `http://127.0.0.1:${barePort}/bare`, headers: {}, pid: bare.pid },
    { name: 'catalogue, keyed (guard+rate limit+quota)', url: `http://127.0.0.1:${keyedPort}${PATH}`, headers: keyHeaders, pid: keyed.pid },
    {
      name: 'catalogue, keyed, If-None-Match → 304',
      url: `http://127.0.0.1:${keyedPort}${PATH}`,
      headers: { ...keyHeaders, 'If-None-Match': etag },
      status: 304,
      pid: keyed.pid,
    },
    { name: 'catalogue, guard off (BENCH_DISABLE_AUTH)', url: `http://127.0.0.1:${openPort}${PATH}`, headers: {}, pid: open.pid },
    // Beside the list, for CPU per request of the other keyed reads (not part of the ratio): one course, and a search
    // (lexical here: the embedded engine is off in the benchmarks, bench:search measures it).
    { name: 'course detail, keyed', url: `http://127.0.0.1:${keyedPort}/api/courses/${course.id}`, headers: keyHeaders, pid: keyed.pid },
    {
      name: 'search, keyed (lexical)',
      url: `http://127.0.0.1:${keyedPort}/api/search`,
      headers: keyHeaders,
      body: JSON.stringify({ query: 'python for beginners', limit: 10 }),
      pid: keyed.pid,
    },
  ];
  if (BASE_ROOT) {
    const basePort = await freePort();
    const base = start(
      'base service',
      join(BASE_ROOT, 'dist', 'src', 'main.js'),
      probeEnv(serviceEnv(basePort, { AUTO_MIGRATE: 'false', LOAD_DEMO_CATALOGUE: 'false' })),
    );
    await waitFor(`http://127.0.0.1:${basePort}/health/ready`, base);
    targets.push({ name: 'base build, keyed (BENCH_BASE_ROOT)', url: `http://127.0.0.1:${basePort}${PATH}`, headers: keyHeaders, pid: base.pid });
  }
  for (const t of targets) await measure(t.url, t.headers, 2, t.status, t.body); // warm-up: JIT, pools, caches
  const results = new Map(targets.map((t) => [t.name, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    // Rotate the order each round so no target always runs first or last (the VM's CPU drifts within a round).
    for (const t of targets.map((_, i) => targets[(i + round - 1) % targets.length])) {
      if (RUN_WARMUP > 0) await measure(t.url, t.headers, RUN_WARMUP, t.status, t.body);
      await readProbe(t.pid);
      const cpu = cpuMeter(t.pid);
      const r = await measure(t.url, t.headers, DURATION, t.status, t.body);
      r.cpus = cpu.per(r.total);
      r.cpu = r.cpus.service;
      r.inside = inside(await readProbe(t.pid), r.total);
      if (r.bad) throw new Error(`${t.name}: ${r.bad} of ${r.total} requests failed or were not 2xx`);
      results.get(t.name).push(r);
      process.stderr.write(
        `round ${round} ${t.name}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, CPU/request: service ${r.cpu.toFixed(3)} + PostgreSQL backends ${r.cpus.backends.toFixed(3)} + autocannon ${r.cpus.bench.toFixed(3)} ms; ${describeInside(r.inside)}\n`,
      );
    }
  }

  const summary = targets.map((t) => {
    const rs = results.get(t.name);
    return {
      name: t.name,
      rps: median(rs.map((r) => r.rps)),
      p50: median(rs.map((r) => r.p50)),
      p99: median(rs.map((r) => r.p99)),
      cpu: median(rs.map((r) => r.cpu)),
      pgCpu: median(rs.map((r) => r.cpus.backends)),
      benchCpu: median(rs.map((r) => r.cpus.bench)),
      runs: rs.map((r) => r.rps.toFixed(0)).join(' / '),
      loopP99: median(rs.map((r) => r.inside?.loopP99 ?? NaN)),
      gc: median(rs.map((r) => r.inside?.gcPerRequest ?? NaN)),
    };
  });
  const [b, k, c, o] = summary;
  const base = summary.find((s) => s.name.startsWith('base build'));
  const pad = (s, n) => String(s).padEnd(n);
  const lines = [
    `GET ${PATH}, ${CONNECTIONS} connections, ${DURATION} s × ${ROUNDS} rounds (medians), Node ${process.version}`,
    `${pad('target', 44)}${pad('req/s', 10)}${pad('p50 ms', 9)}${pad('p99 ms', 9)}${pad('CPU ms/req: service + PG backends + autocannon', 48)}${pad('loop delay p99 ms', 19)}${pad('GC ms/req', 11)}runs (req/s)`,
    ...summary.map(
      (s) =>
        `${pad(s.name, 44)}${pad(s.rps.toFixed(0), 10)}${pad(s.p50, 9)}${pad(s.p99, 9)}${pad(`${s.cpu.toFixed(3)} + ${s.pgCpu.toFixed(3)} + ${s.benchCpu.toFixed(3)}`, 48)}${pad(s.loopP99.toFixed(1), 19)}${pad(s.gc.toFixed(3), 11)}${s.runs}`,
    ),
    '',
    `keyed catalogue / bare:      ${(k.rps / b.rps).toFixed(2)} ×  (target ≥ 0.75: ${k.rps / b.rps >= 0.75 ? 'met' : 'MISSED'}); keyed p99 ${k.p99} ms (target ≤ 25 ms: ${k.p99 <= 25 ? 'met' : 'MISSED'})`,
    `keyed 304 / bare:            ${(c.rps / b.rps).toFixed(2)} ×`,
    `unguarded catalogue / bare:  ${(o.rps / b.rps).toFixed(2)} ×`,
    `keyed / unguarded:           ${(k.rps / o.rps).toFixed(2)} ×`,
    ...(base ? [`base build keyed / bare:     ${(base.rps / b.rps).toFixed(2)} ×   (this build / base build: ${(k.rps / base.rps).toFixed(2)} ×)`] : []),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

runBench(main, () => rmSync(tmp, { recursive: true, force: true }));
