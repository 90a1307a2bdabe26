'use strict';
/**
 * Enrolment benchmark (issues 4 and 16). Run `npm run build` first, then `node bench/enroll.js`.
 *
 * Starts the built service (dist/src/main.js) against a scratch PostgreSQL database it creates (and drops afterwards),
 * creates an enterprise partner with the CLI, one hot published course and BENCH_USERS learners with credits
 * (seeded through the ledger, so balance = ledger sum holds from the start), then, BENCH_ROUNDS times, in an order that rotates each round:
 *   - service: POST /api/enroll with credit deduction through autocannon, every request a distinct learner, all into
 *     the one hot course, BENCH_CONNECTIONS (32) connections;
 *   - plain pg: the statements an enrolment makes (the learner and course reads in parallel, then BEGIN, the
 *     enrolment INSERT, the ledger debit, the outbox INSERT, COMMIT), sent by BENCH_CONNECTIONS concurrent loops
 *     over a `pg` pool of the service's size (20): no HTTP, no framework. The physical reference of issue 16;
 *   - plain pg with the fan-out: the same, plus the statements of the webhook fan-out the service runs after each
 *     commit (batched as the service batches them): the same work as the service, for a like-for-like ratio.
 * Medians of both rates, and of the per-round ratio, are printed. Then top-ups (distinct learners, unique references).
 * Afterwards it checks the invariants: every balance = its ledger sum, none negative, the course's exact enrolled count
 * = its enrolment rows = debits = course.enrolled events. Any violation or non-2xx answer fails the run.
 * BENCH_PG_PROFILE=true samples PostgreSQL's wait events during each run and prints pg_stat_statements (bench/pg-profile.js).
 *
 * Environment: BENCH_DATABASE_URL (admin connection, default postgres://postgres@127.0.0.1:5432/postgres),
 * BENCH_REDIS_URL (redis://127.0.0.1:6379/0), BENCH_DURATION seconds per run (8), BENCH_ROUNDS (3),
 * BENCH_CONNECTIONS (32), BENCH_WARMUP seconds per side before the rounds (20), BENCH_USERS (400000), BENCH_LOG_LEVEL of the service (info, written to /dev/null).
 */
const { randomBytes } = require('node:crypto');
const autocannon = require('autocannon');
const { Pool } = require('pg');
const {
  adminUrl,
  balanceViolations,
  cli,
  cpuMeter,
  enrolmentInvariants,
  databaseUrl,
  dbName,
  freePort,
  MAIN,
  runBench,
  seedCourseAndLearners,
  serviceEnv,
  sql,
  start,
  waitFor,
  requireBuild,
} = require('./lib');
const { formatStatements, formatWaits, sampleWaits, statements } = require('./pg-profile');

const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
// Seconds of warm-up per side before the measured rounds: the service's CPU per enrolment kept falling for about 30 s
// of load (V8 optimising the request path: 2.5 ms in the first 8 s, 1.5 ms by the fifth round), so 500 requests left
// the first rounds measuring a cold process.
const WARMUP = Number(process.env.BENCH_WARMUP ?? 20);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const USERS = Number(process.env.BENCH_USERS ?? 400_000);
const PROFILE = process.env.BENCH_PG_PROFILE === 'true';
// A fourth side: the plain loops with the fan-out sending every statement as a named prepared statement, as the service
// sends its hot ones (parsed and planned once per connection), to see what that alone is worth to the reference.
const PLAIN_NAMED = process.env.BENCH_PLAIN_NAMED === 'true';
const COST = 5;

/** Learners with COST × 4 credits each, seeded as ledger top-ups, and the hot course. */
async function seed(partnerId) {
  const { courseId, users } = await seedCourseAndLearners(partnerId, { learners: USERS, cost: COST, credits: COST * 4, title: 'Hot course' });
  return { courseId, userIds: users.map((u) => u.id) };
}

/** Learners not enrolled yet, shared by both sides so each enrolment is a distinct learner. */
function learnerQueue(userIds) {
  let next = 0;
  return () => {
    if (next >= userIds.length) throw new Error('out of learners: raise BENCH_USERS');
    return userIds[next++];
  };
}

/** Runs autocannon where every request takes the next learner from `take`. */
function measure(url, key, path, bodyOf, take, limits = { duration: DURATION }, method = 'POST') {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections: CONNECTIONS,
        ...limits,
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        requests: [{ method, path, setupRequest: (req) => (method === 'GET' ? req : { ...req, body: JSON.stringify(bodyOf(take())) }) }],
      },
      (err, r) => {
        if (err) return reject(err);
        resolve({
          rps: r.requests.average,
          p50: r.latency.p50,
          p99: r.latency.p99,
          ok: r['2xx'],
          bad: r.non2xx + r.errors + r.timeouts,
          total: r.requests.total,
        });
      },
    );
  });
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const medianCpu = (cs) => Object.fromEntries(['service', 'backends', 'server', 'bench'].map((k) => [k, median(cs.map((c) => c[k]))]));
const id22 = () => randomBytes(16).toString('base64url').slice(0, 22);

/**
 * The webhook fan-out the service runs after each commit (src/webhooks/webhook-fan-out.service.ts), with its statements
 * sent from the plain pool: events committed while a batch runs go out together in the next one, at most two batches
 * at a time (src/common/batcher.ts), and the statements the service sends for a partner without subscriptions (as
 * the bench's is): the fan-out's one statement (which matches no subscription and so inserts nothing), then the events
 * marked dispatched (their keys deleted from events_undispatched), both committing asynchronously as the service's do.
 */
function plainFanOut(pool, named = false) {
  const q = statementOf(named);
  const waiting = [];
  let inFlight = 0;
  let scheduled = false;
  const running = new Set();
  const dispatch = async (events) => {
    const pending = await pool.query(
      q(
        'fan_out',
        `WITH cfg AS (SELECT set_config('synchronous_commit', 'off', true)),
         e AS (
           SELECT * FROM json_to_recordset($1::json) AS e(id varchar, partner_id int, mode varchar, type varchar, ts text, data json)),
         m AS (
           SELECT e.id AS event_id, e.partner_id, e.mode, e.type, e.ts, e.data, s.id AS subscription_id, s.status = 'active' AS active,
                  'whd_' || translate(left(encode(substring(sha256(convert_to(e.id || ':' || s.id, 'UTF8')) FROM 1 FOR 17), 'base64'), 22), '+/', 'xy') AS id
             FROM cfg, e JOIN webhook_subscriptions s ON s.partner_id = e.partner_id AND s.mode = e.mode AND e.type = ANY (s.events)),
         ins AS (
           INSERT INTO webhook_deliveries (id, subscription_id, event_id, partner_id, mode, event_type, body, status)
           SELECT id, subscription_id, event_id, partner_id, mode, type,
                  '{"event":' || to_json(type)::text || ',"timestamp":' || to_json(ts)::text || ',"webhook_id":"' || id || '","data":' || data::text || '}',
                  CASE WHEN active THEN 'pending' ELSE 'skipped' END
             FROM m
           ON CONFLICT (event_id, subscription_id) DO NOTHING RETURNING id, status)
         SELECT id FROM ins WHERE status = 'pending'
         UNION
         SELECT id FROM webhook_deliveries
          WHERE event_id IN (SELECT id FROM e) AND status = 'pending' AND EXISTS (SELECT 1 FROM m)`,
      ),
      [
        JSON.stringify(
          events.map((e) => ({ id: e.id, partner_id: e.partnerId, mode: 'test', type: 'course.enrolled', ts: e.occurredAt.toISOString(), data: e.payload })),
        ),
      ],
    );
    // With no match the service enqueues nothing and marks the events dispatched (WebhookFanOut.deliver).
    if (pending.rows.length) throw new Error('the plain fan-out expects a partner without webhook subscriptions');
    await pool.query(
      q(
        'fan_out_mark',
        `WITH cfg AS (SELECT set_config('synchronous_commit', 'off', true))
         DELETE FROM events_undispatched USING cfg WHERE event_id = ANY ($1::varchar[])`,
      ),
      [events.map((e) => e.id)],
    );
  };
  const flush = () => {
    scheduled = false;
    if (!waiting.length || inFlight >= 2) return;
    const batch = waiting.splice(0, 500);
    inFlight++;
    const done = dispatch(batch)
      .catch((e) => process.stderr.write(`plain fan-out failed: ${e.message}\n`))
      .finally(() => {
        inFlight--;
        running.delete(done);
        schedule();
      });
    running.add(done);
    schedule();
  };
  const schedule = () => {
    if (scheduled || !waiting.length || inFlight >= 2) return;
    scheduled = true;
    setImmediate(flush);
  };
  return {
    add(event) {
      waiting.push(event);
      schedule();
    },
    /** Waits for every batch, so a run's CPU includes its own fan-out. */
    async drain() {
      while (waiting.length || running.size) await Promise.all([...running, new Promise((r) => setImmediate(r))]);
    },
  };
}

/** A statement's text, or with `named` its named prepared form (pg's query config). */
const statementOf = (named) => (name, text) => (named ? { name, text } : text);

/**
 * The service's enrolment statements from a plain pg pool, CONNECTIONS loops for `seconds`; with `fanOut` (plainFanOut),
 * each committed event also goes through the webhook fan-out's statements, as in the service; with `named`, every
 * statement goes as a named prepared statement.
 */
async function plainEnrolments(pool, scope, courseId, take, seconds = DURATION, fanOut = undefined, named = false) {
  const q = statementOf(named);
  const latencies = [];
  let ok = 0;
  let bad = 0;
  const until = Date.now() + seconds * 1000;
  const one = async () => {
    const userId = take();
    const started = performance.now();
    const [user, course] = await Promise.all([
      pool.query(q('learner', 'SELECT id, external_user_id FROM users WHERE partner_id = $1 AND mode = $2 AND id = $3 LIMIT 1'), [
        scope.partnerId,
        'test',
        userId,
      ]),
      pool.query(
        q(
          'course',
          'SELECT c.id, c.title, c.credit_cost, (SELECT count(*)::int FROM topics t WHERE t.course_id = c.id) AS total_topics FROM courses c WHERE c.id = $1 AND c.published',
        ),
        [courseId],
      ),
    ]);
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query(
        q(
          'enrol',
          `INSERT INTO enrollments (partner_id, mode, user_id, course_id, credits_deducted) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (user_id, course_id) DO NOTHING RETURNING id, enrolled_at`,
        ),
        [scope.partnerId, 'test', user.rows[0].id, course.rows[0].id, COST],
      );
      const debit = await client.query(
        q(
          'debit',
          `WITH acc AS (
             UPDATE credit_accounts SET balance = balance - $1, updated_at = now()
              WHERE user_id = $2 AND partner_id = $3 AND mode = $4 AND balance >= $1
             RETURNING balance)
           INSERT INTO credit_transactions (id, user_id, partner_id, mode, amount, kind, enrollment_id, balance_after)
           SELECT $5, $2, $3, $4, -$1::int, 'enrollment', $6, acc.balance FROM acc
           RETURNING balance_after`,
        ),
        [COST, userId, scope.partnerId, 'test', `txn_${id22()}`, rows[0].id],
      );
      const payload = {
        enrollment_id: rows[0].id,
        user_id: userId,
        external_user_id: user.rows[0].external_user_id,
        course_id: courseId,
        course_title: course.rows[0].title,
        credits_deducted: COST,
        enrolled_at: rows[0].enrolled_at.toISOString(),
      };
      const eventId = `evt_${id22()}`;
      await client.query(
        q(
          'outbox',
          `WITH e AS (
             INSERT INTO events (id, partner_id, mode, type, payload, occurred_at)
             SELECT * FROM unnest($1::varchar[], $2::int[], $3::varchar[], $4::varchar[], $5::jsonb[], $6::timestamptz[])
             RETURNING id, created_at)
           INSERT INTO events_undispatched (event_id, created_at) SELECT id, created_at FROM e`,
        ),
        [[eventId], [scope.partnerId], ['test'], ['course.enrolled'], [JSON.stringify(payload)], [rows[0].enrolled_at]],
      );
      await client.query('COMMIT');
      if (!debit.rows.length) throw new Error('debit refused');
      fanOut?.add({ id: eventId, partnerId: scope.partnerId, payload, occurredAt: rows[0].enrolled_at });
      ok++;
      latencies.push(performance.now() - started);
    } catch (e) {
      bad++;
      await client.query('ROLLBACK').catch(() => undefined);
      if (bad === 1) process.stderr.write(`plain enrolment failed: ${e.message}\n`);
    } finally {
      client.release();
    }
  };
  const started = Date.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < until) await one();
    }),
  );
  const elapsed = Date.now() - started;
  await fanOut?.drain();
  latencies.sort((a, b) => a - b);
  return { rps: ok / (elapsed / 1000), p50: Math.round(percentile(latencies, 50)), p99: Math.round(percentile(latencies, 99)), ok, bad };
}

const cpuLine = (c) =>
  `service ${c.service.toFixed(2)} + PostgreSQL backends ${c.backends.toFixed(2)} + PostgreSQL's own processes ${c.server.toFixed(2)} + bench ${c.bench.toFixed(2)} ms`;

/**
 * Runs `fn` while sampling PostgreSQL's wait events (BENCH_PG_PROFILE=true), and prints the statements of that run
 * alone (pg_stat_statements is reset first), per enrolment, so the two sides' statements can be compared.
 */
async function profiled(label, fn) {
  if (!PROFILE) return fn();
  // From the cluster's admin database: a sampler connected to the scratch database would count among its backends,
  // 20–35 ms of CPU a second that weighs most on the slowest side's CPU per enrolment.
  const admin = adminUrl.toString();
  await statements(admin, dbName, { reset: true });
  const sampler = sampleWaits(admin, dbName);
  const result = await fn();
  const waits = formatWaits(await sampler.stop());
  process.stderr.write(`--- ${label}: ${waits}\n${formatStatements(await statements(admin, dbName), result.ok)}\n`);
  return result;
}

async function main() {
  requireBuild();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  process.stderr.write(`scratch database ${dbName}\n`);
  const serviceProcess = start('service', MAIN, serviceEnv(port));
  await waitFor(`${url}/health/ready`, serviceProcess);
  const partner = await cli(['partner', 'create', '--name', 'Bench', '--email', 'bench@example.com', '--plan', 'enterprise'], serviceEnv(port));
  // The enterprise limit (500 req/s per key) would throttle the run; raised in this scratch database only.
  await sql(`UPDATE plans SET rate_limit_per_second = 1000000 WHERE code = 'enterprise'`);
  const { courseId, userIds } = await seed(partner.partner_id);
  process.stderr.write(`${userIds.length} learners, hot course ${courseId} (cost ${COST})\n`);
  const take = learnerQueue(userIds);
  const pool = new Pool({ connectionString: databaseUrl, max: 20 });
  pool.on('error', () => undefined); // an idle client dropped with the scratch database at the end
  const scope = { partnerId: partner.partner_id };

  // Warm-up of both sides on learners the measured runs do not use (JIT, pools); counted in the invariants like any other.
  await measure(url, partner.api_key, '/api/enroll', (id) => ({ user_id: id, course_id: courseId }), take, { duration: WARMUP });
  await plainEnrolments(pool, scope, courseId, take, WARMUP);
  const fanOut = plainFanOut(pool);
  await plainEnrolments(pool, scope, courseId, take, Math.min(WARMUP, 5), fanOut);
  const namedFanOut = plainFanOut(pool, true);
  if (PLAIN_NAMED) await plainEnrolments(pool, scope, courseId, take, Math.min(WARMUP, 5), namedFanOut, true);

  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const runService = () =>
      profiled(`service, round ${r + 1}`, async () => {
        const cpu = cpuMeter(serviceProcess.pid);
        const result = await measure(url, partner.api_key, '/api/enroll', (id) => ({ user_id: id, course_id: courseId }), take);
        return { ...result, cpu: cpu.per(result.total) };
      });
    const runPlain = (label, withFanOut, named = false) =>
      profiled(`${label}, round ${r + 1}`, async () => {
        const cpu = cpuMeter(serviceProcess.pid);
        const result = await plainEnrolments(pool, scope, courseId, take, DURATION, withFanOut, named);
        return { ...result, cpu: cpu.per(result.ok) };
      });
    // Rotate which side goes first, so none always runs on a warmer (or more bloated) table.
    const sides = [
      ['service', runService],
      ['plain', () => runPlain('plain pg')],
      ['plainFanOut', () => runPlain('plain pg with the fan-out', fanOut)],
      ...(PLAIN_NAMED ? [['plainNamed', () => runPlain('plain pg with the fan-out, named statements', namedFanOut, true)]] : []),
    ];
    const round = {};
    for (let i = 0; i < sides.length; i++) {
      const [name, run] = sides[(i + r) % sides.length];
      round[name] = await run();
    }
    const { service, plain, plainFanOut: withFanOut } = round;
    rounds.push(round);
    process.stderr.write(
      `round ${r + 1}: service ${service.rps.toFixed(0)}/s (p99 ${service.p99} ms; CPU/enrolment ${cpuLine(service.cpu)}), ` +
        `plain pg ${plain.rps.toFixed(0)}/s (p99 ${plain.p99} ms; CPU/enrolment ${cpuLine(plain.cpu)}), ratio ${(service.rps / plain.rps).toFixed(2)}; ` +
        `plain pg with the fan-out ${withFanOut.rps.toFixed(0)}/s (CPU/enrolment ${cpuLine(withFanOut.cpu)}), ratio ${(service.rps / withFanOut.rps).toFixed(2)}` +
        (round.plainNamed
          ? `; named statements ${round.plainNamed.rps.toFixed(0)}/s (CPU/enrolment ${cpuLine(round.plainNamed.cpu)}), ratio ${(service.rps / round.plainNamed.rps).toFixed(2)}`
          : '') +
        '\n',
    );
  }
  await pool.end();
  // Whether the count's updates stayed HOT (no index entries written): the hot-row symptom of issue 16.
  const hot = PROFILE
    ? await sql(
        `SELECT relname, n_tup_upd::int AS updates, n_tup_hot_upd::int AS hot FROM pg_stat_user_tables WHERE relname IN ('courses', 'course_enrollment_counts') ORDER BY relname`,
      )
    : [];
  let ref = 0;
  const topupCpu = cpuMeter(serviceProcess.pid);
  const topup = await measure(
    url,
    partner.api_key,
    '/api/credits/topup',
    (id) => ({ user_id: id, amount: 3, source: 'bench', reference: `${dbName}-${ref++}` }),
    take,
    { duration: Math.min(DURATION, 5) },
  );
  topup.cpu = topupCpu.per(topup.total);
  const inv = await enrolmentInvariants(courseId, `(SELECT count(*) FROM credit_transactions WHERE kind = 'topup' AND reference IS NOT NULL)::int AS topups`);

  const serviceRps = median(rounds.map((r) => r.service.rps));
  const plainRps = median(rounds.map((r) => r.plain.rps));
  const ratio = median(rounds.map((r) => r.service.rps / r.plain.rps));
  const fanOutRps = median(rounds.map((r) => r.plainFanOut.rps));
  const fanOutRatio = median(rounds.map((r) => r.service.rps / r.plainFanOut.rps));
  const enrollBad = rounds.reduce((n, r) => n + r.service.bad + r.plain.bad + r.plainFanOut.bad + (r.plainNamed?.bad ?? 0), 0);
  const violations = balanceViolations(inv);
  if (inv.course_enrolled !== inv.enrollment_rows) violations.push(`course enrolled ${inv.course_enrolled} ≠ ${inv.enrollment_rows} enrolment rows`);
  if (inv.debits !== inv.enrollment_rows) violations.push(`${inv.debits} debits for ${inv.enrollment_rows} enrolments`);
  if (inv.enrolled_events !== inv.enrollment_rows) violations.push(`${inv.enrolled_events} course.enrolled events for ${inv.enrollment_rows} enrolments`);
  // Requests still in flight when a run stops complete on the server without being counted by autocannon.
  if (inv.topups < topup.ok) violations.push(`${inv.topups} top-up rows for ${topup.ok} successful top-ups`);
  if (enrollBad || topup.bad) violations.push(`non-2xx or failed requests: enrol ${enrollBad}, top-up ${topup.bad}`);

  const lines = [
    `${CONNECTIONS} concurrent, ${WARMUP} s warm-up per side, then ${DURATION} s per run, ${ROUNDS} interleaved rounds, Node ${process.version}`,
    `enrol with credit deduction, one hot course (medians):`,
    `  service (HTTP, keyed):    ${serviceRps.toFixed(0)}/s   rounds: ${rounds.map((r) => `${r.service.rps.toFixed(0)} (p50 ${r.service.p50}, p99 ${r.service.p99} ms)`).join(', ')}`,
    `  plain pg, same statements: ${plainRps.toFixed(0)}/s   rounds: ${rounds.map((r) => `${r.plain.rps.toFixed(0)} (p50 ${r.plain.p50}, p99 ${r.plain.p99} ms)`).join(', ')}`,
    `  plain pg, same statements and the webhook fan-out's: ${fanOutRps.toFixed(0)}/s   rounds: ${rounds.map((r) => `${r.plainFanOut.rps.toFixed(0)} (p50 ${r.plainFanOut.p50}, p99 ${r.plainFanOut.p99} ms)`).join(', ')}`,
    `  CPU per enrolment (user+system, medians): service side ${cpuLine(medianCpu(rounds.map((r) => r.service.cpu)))}; plain side ${cpuLine(medianCpu(rounds.map((r) => r.plain.cpu)))}; plain with the fan-out ${cpuLine(medianCpu(rounds.map((r) => r.plainFanOut.cpu)))}`,
    ...(PLAIN_NAMED
      ? [
          `  plain pg with the fan-out, named statements: ${median(rounds.map((r) => r.plainNamed.rps)).toFixed(0)}/s   rounds: ${rounds.map((r) => r.plainNamed.rps.toFixed(0)).join(', ')}; CPU per enrolment ${cpuLine(medianCpu(rounds.map((r) => r.plainNamed.cpu)))}; ratio service / it ${median(rounds.map((r) => r.service.rps / r.plainNamed.rps)).toFixed(2)}`,
        ]
      : []),
    `  ratio service / plain: ${ratio.toFixed(2)} (issue 16's reference); service ≥ 400/s: ${serviceRps >= 400 ? 'met' : 'MISSED'}`,
    `  ratio service / plain with the fan-out (the same work on both sides): ${fanOutRatio.toFixed(2)} (target ≥ 0.65: ${fanOutRatio >= 0.65 ? 'met' : 'MISSED'})`,
    `top-up (distinct learners, unique references): ${topup.rps.toFixed(0)} req/s, p50 ${topup.p50} ms, p99 ${topup.p99} ms (${topup.ok} top-ups); CPU per top-up ${cpuLine(topup.cpu)}`,
    `invariants: ${JSON.stringify(inv)}`,
    violations.length
      ? `VIOLATIONS: ${violations.join('; ')}`
      : 'invariants hold: balance = ledger sum for every account, none negative, course enrolled = enrolment rows = debits = events',
    ...(PROFILE ? [`updates (HOT of all): ${hot.map((h) => `${h.relname} ${h.hot} of ${h.updates}`).join(', ')}`] : []),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (violations.length) process.exitCode = 1;
}

runBench(main);
