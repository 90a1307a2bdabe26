'use strict';
/**
 * Bulk enrolment benchmark (issue 19). Run `npm run build` first, then `npm run bench:bulk`.
 *
 * Starts the built service (dist/src/main.js) with its worker in process (RUN_WORKER=true, the default deployment)
 * against a scratch PostgreSQL database, creates an enterprise partner with the CLI, one hot published course and
 * learners with credits (seeded through the ledger), warms up with a small job, then runs BENCH_ROUNDS jobs of
 * BENCH_ROWS rows (default 1,000) one after the other, each row a distinct learner with credit deduction, half of them
 * named by external_user_id. For each job it reports the time from the POST to the job's completed_at (the worker's
 * clock; same machine) and rows per second, and the medians. Afterwards it checks the invariants: every row created,
 * every balance = its ledger sum and none negative, the course's enrolled count = its enrolment rows = debits =
 * course.enrolled events (one per enrolment). Target: 1,000 rows within 10 s.
 *
 * Environment: BENCH_DATABASE_URL, BENCH_REDIS_URL, BENCH_ROUNDS (3), BENCH_ROWS (1000), BENCH_LOG_LEVEL (info).
 */
const {
  balanceViolations,
  cli,
  dbName,
  enrolmentInvariants,
  freePort,
  MAIN,
  runBench,
  seedCourseAndLearners,
  serviceEnv,
  start,
  waitFor,
  requireBuild,
} = require('./lib');

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ROWS = Number(process.env.BENCH_ROWS ?? 1000);
const WARM_ROWS = 100;
const COST = 5;
const TARGET_MS = 10_000;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function call(url, key, method, path, body) {
  const res = await fetch(url + path, {
    method,
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

/** Runs one job of these learners into the course; resolves with its timings once completed. */
async function runJob(url, key, courseId, users) {
  const rows = users.map((u, i) => (i % 2 ? { external_user_id: u.external_user_id, course_id: courseId } : { user_id: u.id, course_id: courseId }));
  const sentAt = Date.now();
  const { job } = await call(url, key, 'POST', '/api/enroll/bulk', { enrollments: rows });
  const acceptedMs = Date.now() - sentAt;
  for (;;) {
    await new Promise((r) => setTimeout(r, 100));
    const j = await call(url, key, 'GET', `/api/jobs/${job.id}`);
    if (j.status === 'completed') {
      const ms = Date.parse(j.completed_at) - sentAt;
      return {
        id: job.id,
        ms,
        acceptedMs,
        runMs: Date.parse(j.completed_at) - Date.parse(j.started_at),
        succeeded: j.succeeded,
        failed: j.failed,
        rps: (rows.length / ms) * 1000,
      };
    }
    if (Date.now() - sentAt > 120_000) throw new Error(`job ${job.id} not completed after 120 s: ${j.processed}/${j.total}`);
  }
}

async function main() {
  requireBuild();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  process.stderr.write(`scratch database ${dbName}\n`);
  const env = serviceEnv(port, { RUN_WORKER: 'true' });
  const service = start('service', MAIN, env);
  await waitFor(`${url}/health/ready`, service);
  const partner = await cli(['partner', 'create', '--name', 'Bench', '--email', 'bench@example.com', '--plan', 'enterprise'], env);
  const { courseId, users } = await seedCourseAndLearners(partner.partner_id, {
    learners: WARM_ROWS + ROUNDS * ROWS,
    cost: COST,
    credits: COST * 2,
    title: 'Compliance 101',
  });
  process.stderr.write(`${users.length} learners, course ${courseId} (cost ${COST})\n`);

  await runJob(url, partner.api_key, courseId, users.slice(0, WARM_ROWS)); // JIT and pools, counted in the invariants
  const runs = [];
  for (let round = 0; round < ROUNDS; round++) {
    const from = WARM_ROWS + round * ROWS;
    const r = await runJob(url, partner.api_key, courseId, users.slice(from, from + ROWS));
    process.stderr.write(`round ${round + 1}: ${ROWS} rows in ${r.ms} ms (${r.rps.toFixed(0)} rows/s; 202 after ${r.acceptedMs} ms)\n`);
    runs.push(r);
  }
  const inv = await enrolmentInvariants(
    courseId,
    `(SELECT count(DISTINCT payload->>'enrollment_id') FROM events WHERE type = 'course.enrolled')::int AS distinct_enrolled_events,
       (SELECT count(*) FROM job_results WHERE status = 'created')::int AS created_results,
       (SELECT count(*) FROM job_results WHERE status = 'failed')::int AS failed_results`,
  );
  const total = WARM_ROWS + ROUNDS * ROWS;
  const violations = balanceViolations(inv);
  if (runs.some((r) => r.failed)) violations.push(`failed rows: ${runs.map((r) => r.failed).join(', ')}`);
  if (inv.created_results !== total || inv.failed_results)
    violations.push(`${inv.created_results} created and ${inv.failed_results} failed results for ${total} rows`);
  for (const [name, n] of Object.entries({
    course_enrolled: inv.course_enrolled,
    enrollment_rows: inv.enrollment_rows,
    debits: inv.debits,
    enrolled_events: inv.enrolled_events,
    distinct_enrolled_events: inv.distinct_enrolled_events,
  })) {
    if (n !== total) violations.push(`${name} ${n} ≠ ${total} rows`);
  }

  const ms = median(runs.map((r) => r.ms));
  const lines = [
    `${ROUNDS} jobs of ${ROWS} rows (distinct learners, one course, credit deduction; half by external_user_id), worker in the API process, Node ${process.version}`,
    `POST → completed: median ${ms} ms, ${median(runs.map((r) => r.rps)).toFixed(0)} rows/s (runs: ${runs.map((r) => `${r.ms} ms`).join(' / ')}; target ${ROWS === 1000 ? `1,000 rows ≤ ${TARGET_MS / 1000} s: ${ms <= TARGET_MS ? 'met' : 'MISSED'}` : 'set for 1,000 rows'})`,
    `202 answered in median ${median(runs.map((r) => r.acceptedMs))} ms; worker run (started → completed) median ${median(runs.map((r) => r.runMs))} ms`,
    `invariants: ${JSON.stringify(inv)}`,
    violations.length
      ? `VIOLATIONS: ${violations.join('; ')}`
      : 'invariants hold: every row created once, balance = ledger sum, none negative, course enrolled = enrolment rows = debits = course.enrolled events',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (violations.length) process.exitCode = 1;
}

runBench(main);
