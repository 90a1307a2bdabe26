'use strict';
/**
 * Catalogue benchmark (issues 2 and 3). Run `npm run build` first, then `npm run bench:catalogue`.
 *
 * Starts, against a scratch PostgreSQL database it creates (and drops afterwards) loaded with the real demo catalogue:
 *   - keyed:     the built service (dist/src/main.js), called with an enterprise key: guard, rate limit and quota active;
 *   - unguarded: the same build with BENCH_DISABLE_AUTH=true (the guard lets catalogue reads through: the call as it was
 *                before API keys existed);
 *   - bare:      bench/bare-app.js, a bare NestJS + Express app answering the very same JSON body.
 * Then measures `GET /api/courses?limit=20` on each with autocannon (50 connections), ROUNDS times interleaved,
 * and prints medians of req/s and p50/p99 latency with the ratios and the targets
 * (catalogue ≥ 80 % of bare, p99 < 25 ms; keyed within 15 % of unguarded).
 *
 * Environment: BENCH_DATABASE_URL (an admin connection, default postgres://postgres@127.0.0.1:5432/postgres),
 * BENCH_REDIS_URL (default redis://127.0.0.1:6379/0), BENCH_DURATION seconds per run (10), BENCH_ROUNDS (3),
 * BENCH_CONNECTIONS (50), BENCH_LOG_LEVEL of the service (info: request logs on, as in production, written to /dev/null).
 */
const { spawn, execFile } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { existsSync, mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const net = require('node:net');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const autocannon = require('autocannon');
const { Client } = require('pg');
const Redis = require('ioredis');

const ROOT = join(__dirname, '..');
const MAIN = join(ROOT, 'dist', 'src', 'main.js');
const CLI = join(ROOT, 'dist', 'src', 'cli.js');
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const PATH = '/api/courses?limit=20';

const run = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
const adminUrl = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const dbName = `partner_api_bench_${run}`;
const databaseUrl = Object.assign(new URL(adminUrl), { pathname: `/${dbName}` }).toString();
const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const redisPrefix = `pa-bench-${run}`;
const children = [];
const tmp = mkdtempSync(join(tmpdir(), 'pa-bench-'));

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

function serviceEnv(port, extra = {}) {
  return {
    ...process.env,
    NODE_ENV: 'development',
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: redisPrefix,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    RUN_WORKER: 'false',
    AUTO_MIGRATE: 'true',
    LOAD_DEMO_CATALOGUE: 'true',
    BENCH_DISABLE_AUTH: 'false',
    ...extra,
  };
}

function start(name, script, env) {
  const child = spawn(process.execPath, [script], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.on('exit', (code) => {
    if (code && !child.stopping) process.stderr.write(`${name} exited with ${code}: ${stderr.slice(-2000)}\n`);
  });
  children.push(child);
  return child;
}

async function waitFor(url, child, timeoutMs = 120_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`process for ${url} exited before it was ready`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} not ready within ${timeoutMs} ms`);
}

function cli(args, env) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CLI, ...args], { cwd: ROOT, env }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`cli ${args.join(' ')} failed: ${stderr || err.message}`));
      resolve(JSON.parse(stdout.trim().split('\n').pop()));
    });
  });
}

async function sql(text, params = []) {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await client.query(text, params);
  } finally {
    await client.end();
  }
}

function measure(url, headers, duration = DURATION) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration, headers }, (err, r) => {
      if (err) return reject(err);
      resolve({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, bad: r.non2xx + r.errors + r.timeouts, total: r.requests.total });
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  if (!existsSync(MAIN) || !existsSync(CLI)) {
    process.stderr.write('dist/ is missing: run `npm run build` first.\n');
    process.exit(2);
  }
  const [keyedPort, openPort, barePort] = [await freePort(), await freePort(), await freePort()];
  process.stderr.write(`scratch database ${dbName}; loading the demo catalogue…\n`);
  const keyed = start('keyed service', MAIN, serviceEnv(keyedPort));
  await waitFor(`http://127.0.0.1:${keyedPort}/health/ready`, keyed);

  const partner = await cli(['partner', 'create', '--name', 'Bench', '--email', 'bench@example.com', '--plan', 'enterprise'], serviceEnv(keyedPort));
  // The enterprise limit (500 req/s per key) would throttle autocannon; raised in this scratch database only.
  await sql(`UPDATE plans SET rate_limit_per_second = 1000000 WHERE code = 'enterprise'`);
  const { rows } = await sql('SELECT count(*)::int AS n FROM courses WHERE published');

  const open = start('unguarded service', MAIN, serviceEnv(openPort, { AUTO_MIGRATE: 'false', LOAD_DEMO_CATALOGUE: 'false', BENCH_DISABLE_AUTH: 'true' }));
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
  const bare = start('bare app', join(__dirname, 'bare-app.js'), { ...process.env, PORT: String(barePort), BARE_BODY_FILE: bodyFile });
  await waitFor(`http://127.0.0.1:${barePort}/bare`, bare);
  const bareBody = await (await fetch(`http://127.0.0.1:${barePort}/bare`)).text();
  process.stderr.write(
    `${rows[0].n} published courses; body ${Buffer.byteLength(body)} B (bare ${Buffer.byteLength(bareBody)} B, unguarded ${Buffer.byteLength(openBody)} B)\n`,
  );

  const targets = [
    { name: 'bare NestJS+Express', url: `http://127.0.0.1:${barePort}/bare`, headers: {} },
    { name: 'catalogue, keyed (guard+rate limit+quota)', url: `http://127.0.0.1:${keyedPort}${PATH}`, headers: keyHeaders },
    { name: 'catalogue, guard off (BENCH_DISABLE_AUTH)', url: `http://127.0.0.1:${openPort}${PATH}`, headers: {} },
  ];
  for (const t of targets) await measure(t.url, t.headers, 2); // warm-up: JIT, pools, caches
  const results = new Map(targets.map((t) => [t.name, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    // Rotate the order each round so no target always runs first or last (the VM's CPU drifts within a round).
    for (const t of targets.map((_, i) => targets[(i + round - 1) % targets.length])) {
      const r = await measure(t.url, t.headers);
      if (r.bad) throw new Error(`${t.name}: ${r.bad} of ${r.total} requests failed or were not 2xx`);
      results.get(t.name).push(r);
      process.stderr.write(`round ${round} ${t.name}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms\n`);
    }
  }

  const summary = targets.map((t) => {
    const rs = results.get(t.name);
    return { name: t.name, rps: median(rs.map((r) => r.rps)), p50: median(rs.map((r) => r.p50)), p99: median(rs.map((r) => r.p99)), runs: rs.map((r) => r.rps.toFixed(0)).join(' / ') };
  });
  const [b, k, o] = summary;
  const pad = (s, n) => String(s).padEnd(n);
  const lines = [
    `GET ${PATH}, ${CONNECTIONS} connections, ${DURATION} s × ${ROUNDS} rounds (medians), Node ${process.version}`,
    `${pad('target', 44)}${pad('req/s', 10)}${pad('p50 ms', 9)}${pad('p99 ms', 9)}runs (req/s)`,
    ...summary.map((s) => `${pad(s.name, 44)}${pad(s.rps.toFixed(0), 10)}${pad(s.p50, 9)}${pad(s.p99, 9)}${s.runs}`),
    '',
    `keyed catalogue / bare:      ${((k.rps / b.rps) * 100).toFixed(1)} %  (target ≥ 80 %: ${k.rps / b.rps >= 0.8 ? 'met' : 'MISSED'}); keyed p99 ${k.p99} ms (target < 25 ms: ${k.p99 < 25 ? 'met' : 'MISSED'})`,
    `unguarded catalogue / bare:  ${((o.rps / b.rps) * 100).toFixed(1)} %`,
    `keyed / unguarded:           ${((k.rps / o.rps) * 100).toFixed(1)} %  (target within 15 %: ${k.rps / o.rps >= 0.85 ? 'met' : 'MISSED'})`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function cleanup() {
  for (const child of children) {
    child.stopping = true;
    if (child.exitCode === null) child.kill('SIGTERM');
  }
  await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null)));
  rmSync(tmp, { recursive: true, force: true });
  const admin = new Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).finally(() => admin.end());
  const redis = new Redis(redisUrl);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${redisPrefix}*`, 'COUNT', 1000);
    if (keys.length) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await redis.quit();
}

process.on('SIGINT', () => cleanup().finally(() => process.exit(130)));
main()
  .then(() => cleanup())
  .catch(async (e) => {
    process.stderr.write(`bench failed: ${e.stack ?? e}\n`);
    await cleanup().catch(() => undefined);
    process.exitCode = 1;
  });
