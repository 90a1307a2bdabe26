'use strict';
/**
 * Enrolment and credits benchmark (issue 4). Run `npm run build` first, then `node bench/enroll.js`.
 *
 * Starts the built service (dist/src/main.js) against a scratch PostgreSQL database it creates (and drops afterwards),
 * creates an enterprise partner with the CLI, one hot published course and BENCH_USERS learners with credits
 * (seeded through the ledger, so balance = ledger sum holds from the start), then measures with autocannon:
 *   - POST /api/enroll with credit deduction, every request a distinct learner, all into the one hot course;
 *   - POST /api/credits/topup, distinct learners, each with a unique reference.
 * Afterwards it checks the invariants: every balance = its ledger sum, none negative, the course's enrolled count =
 * its enrolment rows = the 201s, one debit per enrolment. Any violation or non-2xx answer fails the run.
 *
 * Environment: BENCH_DATABASE_URL (admin connection, default postgres://postgres@127.0.0.1:5432/postgres),
 * BENCH_REDIS_URL (redis://127.0.0.1:6379/0), BENCH_DURATION seconds per run (10), BENCH_CONNECTIONS (32),
 * BENCH_USERS (40000), BENCH_LOG_LEVEL of the service (info, written to /dev/null).
 */
const { existsSync } = require('node:fs');
const autocannon = require('autocannon');
const { CLI, cli, dbName, freePort, MAIN, runBench, seedCourseAndLearners, serviceEnv, sql, start, waitFor } = require('./lib');

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const USERS = Number(process.env.BENCH_USERS ?? 40000);
const COST = 5;

/** Learners with COST × 4 credits each, seeded as ledger top-ups, and the hot course. */
async function seed(partnerId) {
  const { courseId, users } = await seedCourseAndLearners(partnerId, { learners: USERS, cost: COST, credits: COST * 4, title: 'Hot course' });
  return { courseId, userIds: users.map((u) => u.id) };
}

/** Runs autocannon where every request takes the next learner from `userIds`. */
function measure(url, key, path, bodyOf, userIds, limits = { duration: DURATION }, method = 'POST') {
  let next = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections: CONNECTIONS,
        ...limits,
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        requests: [
          {
            method,
            path,
            setupRequest: (req) => {
              if (method === 'GET') return req;
              // Past the last learner requests repeat one (and fail), which the run reports: raise BENCH_USERS.
              return { ...req, body: JSON.stringify(bodyOf(userIds[Math.min(next++, userIds.length - 1)])) };
            },
          },
        ],
      },
      (err, r) => {
        if (err) return reject(err);
        resolve({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, ok: r['2xx'], bad: r.non2xx + r.errors + r.timeouts, total: r.requests.total });
      },
    );
  });
}

async function invariants(courseId) {
  const [row] = await sql(
    `SELECT
       (SELECT count(*) FROM credit_accounts a
         WHERE a.balance <> (SELECT coalesce(sum(t.amount), 0) FROM credit_transactions t WHERE t.user_id = a.user_id))::int AS balance_mismatches,
       (SELECT count(*) FROM credit_accounts WHERE balance < 0)::int AS negative_balances,
       (SELECT course_enrolled($1) AS enrolled) AS course_enrolled,
       (SELECT count(*) FROM enrollments WHERE course_id = $1)::int AS enrollment_rows,
       (SELECT count(*) FROM credit_transactions WHERE kind = 'enrollment')::int AS debits,
       (SELECT count(*) FROM events WHERE type = 'course.enrolled')::int AS enrolled_events,
       (SELECT count(*) FROM credit_transactions WHERE kind = 'topup' AND reference IS NOT NULL)::int AS topups`,
    [courseId],
  );
  return row;
}

async function main() {
  if (!existsSync(MAIN) || !existsSync(CLI)) {
    process.stderr.write('dist/ is missing: run `npm run build` first.\n');
    process.exit(2);
  }
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  process.stderr.write(`scratch database ${dbName}\n`);
  const service = start('service', MAIN, serviceEnv(port));
  await waitFor(`${url}/health/ready`, service);
  const partner = await cli(['partner', 'create', '--name', 'Bench', '--email', 'bench@example.com', '--plan', 'enterprise'], serviceEnv(port));
  // The enterprise limit (500 req/s per key) would throttle the run; raised in this scratch database only.
  await sql(`UPDATE plans SET rate_limit_per_second = 1000000 WHERE code = 'enterprise'`);
  const { courseId, userIds } = await seed(partner.partner_id);
  process.stderr.write(`${userIds.length} learners, hot course ${courseId} (cost ${COST})\n`);

  // Warm-up on learners the measured runs do not use (JIT, pools); counted in the invariants like any other.
  const warm = userIds.splice(0, 500);
  await measure(url, partner.api_key, '/api/enroll', (id) => ({ user_id: id, course_id: courseId }), warm, { amount: warm.length });

  // Baseline: the keyed request pipeline (guard, Redis rate limit and quota, envelope) around one primary-key read.
  const read = await measure(url, partner.api_key, `/api/credits/balance/${userIds[0]}`, null, userIds, { duration: DURATION }, 'GET');
  const half = Math.floor(userIds.length / 2);
  const enroll = await measure(url, partner.api_key, '/api/enroll', (id) => ({ user_id: id, course_id: courseId }), userIds.slice(0, half));
  let ref = 0;
  const topup = await measure(url, partner.api_key, '/api/credits/topup', (id) => ({ user_id: id, amount: 3, source: 'bench', reference: `${dbName}-${ref++}` }), userIds.slice(half));
  const inv = await invariants(courseId);

  const violations = [];
  if (inv.balance_mismatches) violations.push(`${inv.balance_mismatches} balances differ from their ledger sum`);
  if (inv.negative_balances) violations.push(`${inv.negative_balances} negative balances`);
  if (inv.course_enrolled !== inv.enrollment_rows) violations.push(`course enrolled ${inv.course_enrolled} ≠ ${inv.enrollment_rows} enrolment rows`);
  if (inv.debits !== inv.enrollment_rows) violations.push(`${inv.debits} debits for ${inv.enrollment_rows} enrolments`);
  if (inv.enrolled_events !== inv.enrollment_rows) violations.push(`${inv.enrolled_events} course.enrolled events for ${inv.enrollment_rows} enrolments`);
  // Requests still in flight when a run stops complete on the server without being counted by autocannon.
  if (inv.topups < topup.ok) violations.push(`${inv.topups} top-up rows for ${topup.ok} successful top-ups`);
  if (enroll.bad || topup.bad) violations.push(`non-2xx or failed requests: enrol ${enroll.bad}, top-up ${topup.bad}`);

  const lines = [
    `${CONNECTIONS} connections, ${DURATION} s per run, Node ${process.version}`,
    `enrol with credit deduction (distinct learners, one hot course): ${enroll.rps.toFixed(0)} req/s, p50 ${enroll.p50} ms, p99 ${enroll.p99} ms (${enroll.ok} enrolments; target ≥ 400/s: ${enroll.rps >= 400 ? 'met' : 'MISSED'})`,
    `baseline GET /api/credits/balance/:id (keyed pipeline, one read): ${read.rps.toFixed(0)} req/s, p50 ${read.p50} ms, p99 ${read.p99} ms`,
    `top-up (distinct learners, unique references):                  ${topup.rps.toFixed(0)} req/s, p50 ${topup.p50} ms, p99 ${topup.p99} ms (${topup.ok} top-ups)`,
    `invariants: ${JSON.stringify(inv)}`,
    violations.length ? `VIOLATIONS: ${violations.join('; ')}` : 'invariants hold: balance = ledger sum for every account, none negative, course enrolled = enrolment rows = debits = events',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (violations.length) process.exitCode = 1;
}

runBench(main);
