/**
 * What the benchmark scripts share: a scratch PostgreSQL database and Redis prefix of their own (dropped and cleared
 * afterwards), the built service's environment, the CLI, readiness polling and a free port.
 */
const { execFile, spawn } = require('node:child_process');
const { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { randomBytes } = require('node:crypto');
const net = require('node:net');
const { dirname, join } = require('node:path');
const { Client, Pool } = require('pg');
const Redis = require('ioredis');

const ROOT = join(__dirname, '..');
// BENCH_SERVICE_ROOT runs another build of the service (e.g. a checkout of main) under the same benchmark: before/after.
const SERVICE_ROOT = process.env.BENCH_SERVICE_ROOT ?? ROOT;
const MAIN = join(SERVICE_ROOT, 'dist', 'src', 'main.js');
const CLI = join(SERVICE_ROOT, 'dist', 'src', 'cli.js');

const run = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
const adminUrl = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const dbName = `partner_api_bench_${run}`;
const databaseUrl = Object.assign(new URL(adminUrl), { pathname: `/${dbName}` }).toString();
const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const redisPrefix = `pa-bench-${run}`;
const children = [];
// Further scratch databases a script created (bench/ab.js gives each build its own), dropped with the first.
const extraDatabases = [];

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** The built service's environment on `port`, against the scratch database and Redis prefix. */
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
    LOAD_DEMO_CATALOGUE: 'false',
    BENCH_DISABLE_AUTH: 'false',
    // The embedded search engine's one-off start-up (importing word vectors into a fresh database, building its index:
    // 10–60 s of a core here) would overlap the measured runs; bench:search measures the engine. BENCH_SEARCH_ENGINE=true keeps it.
    SEARCH_EMBEDDED_ENGINE: process.env.BENCH_SEARCH_ENGINE ?? 'false',
    // Likewise the sentence encoder: loading and warming its model takes seconds of CPU at start, which would overlap
    // the first measured events of a bench without a warm-up.
    SEARCH_SENTENCE_ENCODER: process.env.BENCH_SEARCH_ENGINE ?? 'false',
    ...extra,
  };
}

/**
 * The node flags a checkout's `npm start` runs its service with (the `start` script in its package.json), so that a
 * benchmark runs each build's service as it is deployed.
 */
function startFlags(root) {
  const startScript = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts?.start ?? '';
  const m = /^node\s+(.*?)\s*dist\/src\/main\.js$/.exec(startScript.trim());
  return m ? m[1].split(/\s+/).filter(Boolean) : [];
}

/**
 * Starts a Node script (the service or a helper app); stopped by cleanup(). A built service (`<root>/dist/src/main.js`)
 * gets the node flags of its checkout's `npm start`; BENCH_NODE_FLAGS go to this checkout's service after them.
 */
function start(name, script, env) {
  const service = script.endsWith(join('dist', 'src', 'main.js')) ? startFlags(join(dirname(script), '..', '..')) : [];
  const flags = [...service, ...(script === MAIN && process.env.BENCH_NODE_FLAGS ? process.env.BENCH_NODE_FLAGS.split(' ') : [])];
  const child = spawn(process.execPath, [...flags, script], { cwd: script === MAIN ? SERVICE_ROOT : ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.on('exit', (code) => {
    if (code && !child.stopping) process.stderr.write(`${name} exited with ${code}: ${stderr.slice(-2000)}\n`);
  });
  children.push(child);
  return child;
}

/** Stops the benchmark when the service it runs has not been built (the benchmarks run dist/, as `npm start` does). */
function requireBuild() {
  if (existsSync(MAIN) && existsSync(CLI)) return;
  process.stderr.write('dist/ is missing: run `npm run build` first.\n');
  process.exit(2);
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

/** Runs one operator CLI command and returns the JSON object it printed. */
function cli(args, env) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CLI, ...args], { cwd: SERVICE_ROOT, env }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`cli ${args.join(' ')} failed: ${stderr || err.message}`));
      resolve(JSON.parse(stdout.trim().split('\n').pop()));
    });
  });
}

/**
 * CPU time (user + system, ms) a process has used so far, from /proc (Linux; clock ticks of 10 ms). CPU per request
 * moves far less than req/s when other work shares the machine, so the benchmarks print both.
 */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/**
 * CPU time (ms) used so far by the PostgreSQL processes that serve the scratch database, by pid, from /proc: its
 * client backends (`backend`), and the cluster's own processes (WAL writer, checkpointer, background writer, and
 * autovacuum workers of this database). Backends of other databases and other clusters on the machine (other
 * developers' tests, a second cluster) are left out, and so is an autovacuum worker from the backends, whose cost is
 * the tables' rather than the statements'. Empty when none is visible (PostgreSQL on another host).
 * `postgresCpuSince` turns two readings into the work done between.
 */
let postmasters;

function postgresCpu() {
  const all = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== 'postgres') continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      all.push({ pid, ppid: fields[1], ms: (Number(fields[11]) + Number(fields[12])) * 10, title });
    } catch {
      // the process ended between listing and reading
    }
  }
  // The cluster serving the scratch database: the parent of its backends, found once they exist.
  const ours = all.filter((p) => p.title.includes(dbName) && !p.title.includes('autovacuum worker'));
  if (!postmasters?.size && ours.length) postmasters = new Set(ours.map((p) => p.ppid));
  const processes = new Map();
  for (const p of all) {
    if (!postmasters?.has(p.ppid)) continue;
    const backend = p.title.includes(dbName) && !p.title.includes('autovacuum worker');
    const own = /: (checkpointer|background writer|walwriter|autovacuum launcher|logical replication launcher|archiver|stats collector)\b/.test(p.title);
    const vacuum = p.title.includes('autovacuum worker') && p.title.includes(dbName);
    if (backend || own || vacuum) processes.set(p.pid, { ms: p.ms, backend });
  }
  return processes;
}

/** PostgreSQL's CPU (ms) between two readings of postgresCpu(): backends of the scratch database, and the cluster's own processes. A process that ended in between is not counted. */
function postgresCpuSince(before, after = postgresCpu()) {
  const used = { backends: 0, server: 0 };
  for (const [pid, p] of after) used[p.backend ? 'backends' : 'server'] += p.ms - (before.get(pid)?.ms ?? 0);
  return used;
}

/**
 * Where a run's CPU went, per request (ms): the service's process, PostgreSQL's backends of the scratch database and
 * its own processes (WAL writer, checkpointer, autovacuum…), and this process (the load generator). The machine's
 * cores are shared by all of them, so the side that needs less CPU per request in total gets more requests per second.
 */
function cpuMeter(servicePid) {
  const before = { service: cpuMs(servicePid), postgres: postgresCpu(), bench: process.cpuUsage() };
  return {
    per(n) {
      const bench = process.cpuUsage(before.bench);
      const postgres = postgresCpuSince(before.postgres);
      return {
        service: (cpuMs(servicePid) - before.service) / n,
        backends: postgres.backends / n,
        server: postgres.server / n,
        bench: (bench.user + bench.system) / 1000 / n,
      };
    },
  };
}

/**
 * Loop delay and GC pauses inside a measured process (bench/service-probe.js, preloaded through `probeEnv()`):
 * `readProbe(pid)` answers what it saw since the previous call (the first call only starts the count), or null when
 * the process does not answer.
 */
let probeDir;

function probeEnv(env) {
  probeDir ??= mkdtempSync(join(tmpdir(), 'pa-bench-probe-'));
  const flags = `${env.NODE_OPTIONS ?? ''} -r ${join(__dirname, 'service-probe.js')}`.trim();
  return { ...env, NODE_OPTIONS: flags, BENCH_PROBE_DIR: probeDir };
}

async function readProbe(pid) {
  if (!probeDir) return null;
  const file = join(probeDir, `probe-${pid}.json`);
  rmSync(file, { force: true });
  try {
    process.kill(pid, 'SIGWINCH');
  } catch {
    return null;
  }
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 10));
    if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  }
  return null;
}

/** One statement on the scratch database (or the one at `url`); returns its rows. */
async function sql(text, params = [], url = databaseUrl) {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows;
  } finally {
    await client.end();
  }
}

const sqlAt = (url, text, params) => sql(text, params, url);

/** Creates the run's scratch database (runBench drops it) and returns a pool on it, for the plain-SQL benchmarks. */
async function scratchPool(max = 20) {
  await sql(`CREATE DATABASE "${dbName}"`, [], adminUrl.toString());
  return new Pool({ connectionString: databaseUrl, max });
}

/**
 * One published course costing `cost` (with one topic) and `learners` learners of the partner, each with `credits`
 * seeded as a ledger top-up, so balance = ledger sum holds from the start. Returns the course id and the learners.
 */
async function seedCourseAndLearners(partnerId, { learners, cost, credits, title }, url = databaseUrl) {
  const sql = (text, params) => sqlAt(url, text, params);
  await sql(`INSERT INTO tutors (name, bio) VALUES ('Bench Tutor', 'Teaches benchmarks.')`);
  const [course] = await sql(
    `INSERT INTO courses (title, description, category, level, duration_minutes, rating, enrolled, credit_cost, tutor_id, published)
     SELECT $2, 'Everyone enrols here.', 'Bench', 'Beginner', 60, 4.5, 0, $1, max(id), true FROM tutors RETURNING id`,
    [cost, title],
  );
  await sql(`INSERT INTO topics (course_id, position, title, duration_minutes, has_quiz) VALUES ($1, 1, 'Only topic', 30, false)`, [course.id]);
  await sql(
    `INSERT INTO users (partner_id, mode, external_user_id, name, email)
     SELECT $1, 'test', 'bench-' || g, 'Learner ' || g, 'learner' || g || '@example.com' FROM generate_series(1, $2) g`,
    [partnerId, learners],
  );
  await sql(`INSERT INTO credit_accounts (user_id, partner_id, mode, balance) SELECT id, partner_id, mode, $2 FROM users WHERE partner_id = $1`, [
    partnerId,
    credits,
  ]);
  await sql(
    `INSERT INTO credit_transactions (id, user_id, partner_id, mode, amount, kind, source, balance_after)
     SELECT 'txn_seed' || id, id, partner_id, mode, $2, 'topup', 'bench seed', $2 FROM users WHERE partner_id = $1`,
    [partnerId, credits],
  );
  const users = await sql(`SELECT id, external_user_id FROM users WHERE partner_id = $1 ORDER BY id`, [partnerId]);
  return { courseId: course.id, users };
}

/** Stops every started process, drops the scratch database and clears the Redis prefix. */
async function cleanup() {
  if (probeDir) rmSync(probeDir, { recursive: true, force: true });
  // A child stopped by a signal keeps exitCode null (its signalCode is set): waiting for its 'exit' again would never end,
  // and Node would quit with the scratch database still there.
  const running = (c) => c.exitCode === null && c.signalCode === null;
  for (const child of children) {
    child.stopping = true;
    if (running(child)) child.kill('SIGTERM');
  }
  await Promise.all(children.map((c) => (running(c) ? new Promise((r) => c.once('exit', r)) : null)));
  const admin = new Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  try {
    for (const name of [dbName, ...extraDatabases]) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
  const redis = new Redis(redisUrl);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${redisPrefix}*`, 'COUNT', 1000);
    if (keys.length) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await redis.quit();
}

/** Runs `main`, always cleaning up (also on Ctrl-C); a failure sets exit code 1. */
function runBench(main, extraCleanup = () => undefined) {
  const done = () => Promise.resolve(extraCleanup()).then(cleanup);
  process.on('SIGINT', () => done().finally(() => process.exit(130)));
  main()
    .then(done)
    .catch(async (e) => {
      process.stderr.write(`bench failed: ${e.stack ?? e}\n`);
      await done().catch(() => undefined);
      process.exitCode = 1;
    });
}

/**
 * The ledger and enrolment invariants both enrolment benchmarks check, in one statement, plus `extra` columns of
 * the caller's own: every balance equals its ledger sum, none is negative, and the course's exact enrolled count,
 * its enrolment rows, the enrolment debits and the course.enrolled events can be compared.
 */
async function enrolmentInvariants(courseId, extra = '') {
  const [row] = await sql(
    `SELECT
       (SELECT count(*) FROM credit_accounts a
         WHERE a.balance <> (SELECT coalesce(sum(t.amount), 0) FROM credit_transactions t WHERE t.user_id = a.user_id))::int AS balance_mismatches,
       (SELECT count(*) FROM credit_accounts WHERE balance < 0)::int AS negative_balances,
       ${(await sql(`SELECT to_regproc('course_enrolled') IS NOT NULL AS exact`))[0].exact ? 'course_enrolled($1)' : '(SELECT enrolled FROM courses WHERE id = $1)'} AS course_enrolled,
       (SELECT count(*) FROM enrollments WHERE course_id = $1)::int AS enrollment_rows,
       (SELECT count(*) FROM credit_transactions WHERE kind = 'enrollment')::int AS debits,
       (SELECT count(*) FROM events WHERE type = 'course.enrolled')::int AS enrolled_events${extra ? `,\n       ${extra}` : ''}`,
    [courseId],
  );
  return row;
}

/** The balance invariants' violations, as sentences (empty when they hold). */
function balanceViolations(inv) {
  const violations = [];
  if (inv.balance_mismatches) violations.push(`${inv.balance_mismatches} balances differ from their ledger sum`);
  if (inv.negative_balances) violations.push(`${inv.negative_balances} negative balances`);
  return violations;
}

module.exports = {
  ROOT,
  MAIN,
  CLI,
  dbName,
  databaseUrl,
  extraDatabases,
  adminUrl,
  cpuMs,
  cpuMeter,
  probeEnv,
  readProbe,
  postgresCpu,
  postgresCpuSince,
  freePort,
  serviceEnv,
  start,
  requireBuild,
  waitFor,
  cli,
  sql,
  scratchPool,
  seedCourseAndLearners,
  runBench,
  enrolmentInvariants,
  balanceViolations,
};
