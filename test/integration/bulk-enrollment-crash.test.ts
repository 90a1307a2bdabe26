import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { startApp, TestApp } from '../support/app';
import { createCourse, createPartner, CreatedPartner, unique } from '../support/factories';
import { killAll, ServiceProcess, startWorkerProcess } from '../support/processes';
import { sleep, waitFor } from '../support/webhook-receiver';
import { startBulk, waitForJob } from './bulk.helpers';

jest.setTimeout(150_000);

// A Redis prefix of its own: no other test file's in-process worker takes this file's queue entries.
const PREFIX = `${process.env.REDIS_PREFIX}-bulkcrash`;
const LEARNERS = 250;
const COST = 3;

/**
 * Crash safety of bulk enrolment with a real worker process (src/worker.ts): killed with SIGKILL in the middle of a
 * job, stopped with SIGTERM, and restarted after Redis lost the queue. Each time the job completes and no row is
 * applied twice: every row is created exactly once, in row order per learner, with one debit and one event each.
 */
describe('bulk enrolment across worker crashes and a Redis that lost its data', () => {
  let t: TestApp;
  let p: CreatedPartner;
  let redis: Redis;
  const procs: ServiceProcess[] = [];

  beforeAll(async () => {
    t = await startApp({ RUN_WORKER: 'false', REDIS_PREFIX: PREFIX, DATABASE_POOL_SIZE: '5' });
    p = await createPartner(t, { plan: 'enterprise' });
    redis = new Redis(process.env.REDIS_URL!);
  });

  // Each test starts its own workers: none may carry on another test's job.
  afterEach(async () => {
    await Promise.all(procs.splice(0).map((w) => w.kill()));
  });

  afterAll(async () => {
    await killAll();
    redis?.disconnect();
    await t?.close();
  });

  const worker = async (env: Record<string, string> = {}) => {
    const w = await startWorkerProcess(unique('jobs-worker'), { REDIS_PREFIX: PREFIX, ...env });
    procs.push(w);
    return w;
  };

  /** LEARNERS learners with credits for exactly two enrolments, and the job's rows: every learner into A, then into B. */
  async function cohort(): Promise<{ courses: number[]; users: number[]; rows: Array<{ user_id?: number; external_user_id?: string; course_id: number }> }> {
    const [a, b] = [await createCourse(t.db, { creditCost: COST }), await createCourse(t.db, { creditCost: COST })];
    const tag = unique('crash');
    const users: Array<{ id: number; external_user_id: string }> = await t.db.query(
      `INSERT INTO users (partner_id, mode, external_user_id, name, email)
       SELECT $1, 'test', $2 || '-' || g, 'Learner ' || g, 'l' || g || '@example.com' FROM generate_series(1, $3) g RETURNING id, external_user_id`,
      [p.partnerId, tag, LEARNERS],
    );
    const ids = users.map((u) => u.id);
    await t.db.query(`INSERT INTO credit_accounts (user_id, partner_id, mode, balance) SELECT unnest($1::int[]), $2, 'test', $3`, [ids, p.partnerId, 2 * COST]);
    await t.db.query(
      `INSERT INTO credit_transactions (id, user_id, partner_id, mode, amount, kind, source, balance_after)
       SELECT 'txn_' || substr(md5(random()::text || u), 1, 22), u, $2, 'test', $3, 'topup', 'test seed', $3 FROM unnest($1::int[]) u`,
      [ids, p.partnerId, 2 * COST],
    );
    const rows = [
      ...users.map((u, i) => (i % 2 ? { external_user_id: u.external_user_id, course_id: a.course.id } : { user_id: u.id, course_id: a.course.id })),
      ...users.map((u) => ({ user_id: u.id, course_id: b.course.id })),
    ];
    return { courses: [a.course.id, b.course.id], users: ids, rows };
  }

  const processed = async (jobId: string): Promise<number> => (await t.db.query(`SELECT count(*)::int AS n FROM job_results WHERE job_id = $1`, [jobId]))[0].n;

  /** Every row created once, each learner charged exactly twice, counts and events matching the rows. */
  async function expectAppliedOnce(jobId: string, c: Awaited<ReturnType<typeof cohort>>): Promise<void> {
    const job = await waitForJob(p.http, jobId, 90_000);
    expect(job).toMatchObject({ status: 'completed', total: 2 * LEARNERS, processed: 2 * LEARNERS, succeeded: 2 * LEARNERS, failed: 0 });
    expect(job.results.map((r: any) => r.index)).toEqual(c.rows.map((_, i) => i));
    const [inv] = await t.db.query(
      `SELECT
         (SELECT count(*) FROM enrollments WHERE course_id = ANY($2::int[]))::int AS enrollments,
         (SELECT count(DISTINCT enrollment_id) FROM job_results WHERE job_id = $3)::int AS distinct_results,
         (SELECT count(*) FROM job_results r JOIN enrollments e ON e.id = r.enrollment_id WHERE r.job_id = $3 AND e.course_id = ANY($2::int[]))::int AS results_matching,
         (SELECT sum(course_enrolled(id)) FROM courses WHERE id = ANY($2::int[]))::int AS course_counts,
         (SELECT count(*) FROM credit_transactions WHERE kind = 'enrollment' AND user_id = ANY($1::int[]))::int AS debits,
         (SELECT count(*) FROM credit_accounts a WHERE a.user_id = ANY($1::int[]) AND (a.balance <> 0 OR a.balance <> (SELECT sum(amount) FROM credit_transactions t WHERE t.user_id = a.user_id)))::int AS bad_balances,
         (SELECT count(*) FROM events WHERE type = 'course.enrolled' AND (payload->>'course_id')::int = ANY($2::int[]))::int AS events,
         (SELECT count(DISTINCT payload->>'enrollment_id') FROM events WHERE type = 'course.enrolled' AND (payload->>'course_id')::int = ANY($2::int[]))::int AS distinct_events`,
      [c.users, c.courses, jobId],
    );
    const n = 2 * LEARNERS;
    expect(inv).toEqual({
      enrollments: n,
      distinct_results: n,
      results_matching: n,
      course_counts: n,
      debits: n,
      bad_balances: 0,
      events: n,
      distinct_events: n,
    });
    // Row order per learner: the enrolment into A (rows 0…) was made before the one into B.
    const [{ out_of_order }] = await t.db.query(
      `SELECT count(*)::int AS out_of_order FROM enrollments a JOIN enrollments b ON a.user_id = b.user_id AND a.course_id = $1 AND b.course_id = $2 WHERE a.id > b.id`,
      c.courses,
    );
    expect(out_of_order).toBe(0);
  }

  /** A cohort's job started on a fresh worker (whose sweep stays out of the way), once that worker has processed some rows. */
  async function jobUnderway(): Promise<{ c: Awaited<ReturnType<typeof cohort>>; first: ServiceProcess; jobId: string }> {
    const c = await cohort();
    const first = await worker({ JOBS_SWEEP_INTERVAL_MS: '600000' });
    const job = await startBulk(p.http, c.rows);
    await waitFor(async () => (await processed(job.id)) >= 60, 60_000, 'the worker to process some rows');
    return { c, first, jobId: job.id };
  }

  /** The jobs queue over a connection of its own, closed with it: BullMQ leaves a connection it was handed open. */
  async function withJobsQueue(use: (queue: Queue) => Promise<void>): Promise<void> {
    const connection = redis.duplicate();
    const queue = new Queue('jobs', { connection, prefix: `${PREFIX}:bull` });
    try {
      await use(queue);
    } finally {
      await queue.close();
      connection.disconnect();
    }
  }

  it('completes a job whose worker was SIGKILLed halfway, once a worker runs again, applying no row twice', async () => {
    const { c, first, jobId } = await jobUnderway();
    await first.kill();
    const atKill = await processed(jobId);
    expect(atKill).toBeLessThan(2 * LEARNERS);
    // No worker is running, so no end state can be waited for: a fixed look at the job shows nothing runs it meanwhile.
    await sleep(500);
    expect(await processed(jobId)).toBe(atKill);
    expect((await p.http.get(`/api/jobs/${jobId}`)).body.data).toMatchObject({ status: 'running', processed: atKill });
    // The sweep stays far away: the restarted worker takes the job over through BullMQ's stalled-job check.
    await worker({ JOBS_SWEEP_INTERVAL_MS: '600000' });
    await expectAppliedOnce(jobId, c);
  });

  it('completes a job after a SIGKILL and Redis losing the queue, from PostgreSQL alone (the sweep)', async () => {
    const { c, first, jobId } = await jobUnderway();
    await first.kill();
    expect(await processed(jobId)).toBeLessThan(2 * LEARNERS);
    // Redis restarted empty: the queue and the killed run's entry are gone.
    await withJobsQueue(async (queue) => {
      await queue.obliterate({ force: true });
      expect(await queue.getJob(jobId)).toBeUndefined();
    });
    await worker({ JOBS_SWEEP_INTERVAL_MS: '500' });
    await expectAppliedOnce(jobId, c);
  });

  it('hands a running job back to the queue on SIGTERM and finishes it after a restart', async () => {
    const { c, first, jobId } = await jobUnderway();
    const began = Date.now();
    const exit = await first.stop('SIGTERM', 15_000);
    expect(exit.signal === 'SIGTERM' || exit.code === 0).toBe(true); // Nest re-raises the signal after its shutdown hooks
    expect(Date.now() - began).toBeLessThan(10_000);
    expect(await processed(jobId)).toBeLessThan(2 * LEARNERS);
    // Handed back between two rows (not left active for the stalled-job check), without using up an attempt.
    await withJobsQueue(async (queue) => {
      const entry = await queue.getJob(jobId);
      // Jobs carry their partner's outstanding rows as priority (fair scheduling), so a queued job reads "prioritized".
      expect(['waiting', 'prioritized']).toContain(await entry?.getState());
      expect(entry?.attemptsMade).toBe(0);
    });
    await worker({ JOBS_SWEEP_INTERVAL_MS: '600000' });
    await expectAppliedOnce(jobId, c);
  });
});
