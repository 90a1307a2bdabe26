import { BulkEnrollmentJob } from '../../src/jobs/worker/bulk-enrollment.job';
import { startApp, TestApp } from '../support/app';
import { createCourse, createKey, createPartner, CreatedPartner, unique } from '../support/factories';
import { BulkRow, startBulk, waitForJob } from './bulk.helpers';
import { createLearner, eventsOf, ledgerOf, topUp } from './enrollment.helpers';

let t: TestApp;
let p: CreatedPartner;
beforeAll(async () => {
  t = await startApp();
  p = await createPartner(t, { plan: 'enterprise' });
});
afterAll(() => t.close());

const enrolledCount = async (courseId: number): Promise<number> => (await t.db.query(`SELECT course_enrolled($1) AS enrolled`, [courseId]))[0].enrolled;

describe('POST /api/enroll/bulk', () => {
  it('answers 202 with a queued job and its Location, then enrols every row like POST /api/enroll', async () => {
    const [a, b] = [await createLearner(p.http), await createLearner(p.http)];
    await topUp(p.http, a.id, 50);
    const { course } = await createCourse(t.db, { creditCost: 20, enrolled: 7 });
    const res = await p.http.post('/api/enroll/bulk', {
      enrollments: [
        { user_id: a.id, course_id: course.id },
        { external_user_id: b.external_user_id, course_id: course.id, deduct_credits: false },
      ],
    });
    expect(res.status).toBe(202);
    const job = res.body.data.job;
    expect(job).toEqual({
      id: expect.stringMatching(/^job_[0-9A-Za-z]{22}$/),
      type: 'enrollment.bulk',
      status: 'queued',
      total: 2,
      processed: 0,
      succeeded: 0,
      failed: 0,
      created_at: expect.stringMatching(/Z$/),
      started_at: null,
      completed_at: null,
    });
    expect(res.headers.get('location')).toBe(`/api/jobs/${job.id}`);

    const done = await waitForJob(p.http, job.id);
    // Rows of different learners run in parallel lanes, so enrolment ids and event times need not follow row order.
    const enrollments: Array<{ id: number; user_id: number }> = await t.db.query(`SELECT id, user_id FROM enrollments WHERE course_id = $1 ORDER BY user_id`, [
      course.id,
    ]);
    expect(enrollments.map((e) => e.user_id)).toEqual([a.id, b.id]); // a was created first: the lower id
    expect(done).toEqual({
      ...job,
      status: 'completed',
      processed: 2,
      succeeded: 2,
      failed: 0,
      started_at: expect.stringMatching(/Z$/),
      completed_at: expect.stringMatching(/Z$/),
      results: [
        { index: 0, status: 'created', enrollment_id: enrollments[0].id, credits_deducted: 20 },
        { index: 1, status: 'created', enrollment_id: enrollments[1].id, credits_deducted: 0 },
      ],
    });
    expect(Date.parse(done.started_at)).toBeLessThanOrEqual(Date.parse(done.completed_at));
    expect(await enrolledCount(course.id)).toBe(9);
    expect(await ledgerOf(t.db, a.id)).toEqual({ balance: 30, sum: 30, rows: 2 });
    // The same event, with the same payload, as the single enrolment records.
    const events = (await eventsOf(t.db, p.partnerId, 'course.enrolled')).filter((e) => e.payload.course_id === course.id);
    const view = (await p.http.get(`/api/enrollments/${enrollments[0].id}`)).body.data;
    expect(events.map((e) => e.payload).sort((x, y) => Number(x.user_id) - Number(y.user_id))).toEqual([
      {
        enrollment_id: enrollments[0].id,
        user_id: a.id,
        external_user_id: a.external_user_id,
        course_id: course.id,
        course_title: course.title,
        credits_deducted: 20,
        enrolled_at: view.enrolled_at,
      },
      {
        enrollment_id: enrollments[1].id,
        user_id: b.id,
        external_user_id: b.external_user_id,
        course_id: course.id,
        course_title: course.title,
        credits_deducted: 0,
        enrolled_at: expect.any(String),
      },
    ]);
  });

  it('fails each bad row with the error POST /api/enroll gives, without touching the other rows', async () => {
    const [rich, poor, enrolled, other] = [await createLearner(p.http), await createLearner(p.http), await createLearner(p.http), await createLearner(p.http)];
    await topUp(p.http, rich.id, 100);
    await topUp(p.http, poor.id, 5);
    const { course } = await createCourse(t.db, { creditCost: 10 });
    const hidden = await createCourse(t.db, { creditCost: 0, published: false });
    const first = await p.http.post('/api/enroll', { user_id: enrolled.id, course_id: course.id, deduct_credits: false });
    const stranger = await createLearner((await createPartner(t)).http);
    const rows: BulkRow[] = [
      { user_id: rich.id, course_id: course.id },
      { user_id: poor.id, course_id: course.id },
      { user_id: enrolled.id, course_id: course.id },
      { user_id: 2_000_000_000, course_id: course.id },
      { external_user_id: unique('ghost'), course_id: course.id },
      { user_id: rich.id, course_id: hidden.course.id },
      { user_id: rich.id, external_user_id: other.external_user_id, course_id: course.id },
      { user_id: stranger.id, course_id: course.id, deduct_credits: false },
      { user_id: other.id, course_id: course.id, deduct_credits: false },
    ];
    // What the single enrolment answers for each failing row, checked on a twin learner where the row would write.
    const single = await p.http.post('/api/enroll', rows[1]);
    expect(single.body.error).toMatchObject({ code: 'insufficient_credits', details: { required: 10, available: 5 } });

    const done = await waitForJob(p.http, (await startBulk(p.http, rows)).id);
    expect(done).toMatchObject({ total: 9, processed: 9, succeeded: 2, failed: 7 });
    const [richRow, otherRow] = await t.db.query(`SELECT id FROM enrollments WHERE course_id = $1 AND user_id = ANY($2::int[]) ORDER BY user_id = $3 DESC`, [
      course.id,
      [rich.id, other.id],
      rich.id,
    ]);
    expect(done.results).toEqual([
      { index: 0, status: 'created', enrollment_id: richRow.id, credits_deducted: 10 },
      {
        index: 1,
        status: 'failed',
        error: { code: 'insufficient_credits', message: 'The user does not have enough credits.', details: { required: 10, available: 5 } },
      },
      {
        index: 2,
        status: 'failed',
        error: { code: 'already_enrolled', message: 'The user is already enrolled in this course.', details: { enrollment_id: first.body.data.enrollment_id } },
      },
      { index: 3, status: 'failed', error: { code: 'user_not_found', message: 'User not found.' } },
      { index: 4, status: 'failed', error: { code: 'user_not_found', message: 'User not found.' } },
      { index: 5, status: 'failed', error: { code: 'course_not_found', message: 'Course not found.' } },
      {
        index: 6,
        status: 'failed',
        error: {
          code: 'validation_failed',
          message: 'The request is invalid.',
          details: [{ field: 'external_user_id', message: 'user_id and external_user_id name different users' }],
        },
      },
      { index: 7, status: 'failed', error: { code: 'user_not_found', message: 'User not found.' } },
      { index: 8, status: 'created', enrollment_id: otherRow.id, credits_deducted: 0 },
    ]);
    expect(await ledgerOf(t.db, poor.id)).toEqual({ balance: 5, sum: 5, rows: 1 });
    expect(await ledgerOf(t.db, rich.id)).toEqual({ balance: 90, sum: 90, rows: 2 });
    expect(await enrolledCount(course.id)).toBe(3);
  });

  it('spends a learner’s credits in row order', async () => {
    const learner = await createLearner(p.http);
    await topUp(p.http, learner.id, 30);
    const courses = await Promise.all([20, 20, 10, 5].map((creditCost) => createCourse(t.db, { creditCost })));
    const done = await waitForJob(
      p.http,
      (
        await startBulk(
          p.http,
          courses.map((c) => ({ user_id: learner.id, course_id: c.course.id })),
        )
      ).id,
    );
    expect(done.results.map((r: any) => r.status)).toEqual(['created', 'failed', 'created', 'failed']);
    expect(done.results[1].error.details).toEqual({ required: 20, available: 10 });
    expect(done.results[3].error.details).toEqual({ required: 5, available: 0 });
    expect(await ledgerOf(t.db, learner.id)).toEqual({ balance: 0, sum: 0, rows: 3 });
  });

  it('writes each created row’s outcome in the transaction of its enrolment, debit and event', async () => {
    const learners = await Promise.all([0, 1, 2].map(() => createLearner(p.http)));
    for (const l of learners) await topUp(p.http, l.id, 10);
    const { course } = await createCourse(t.db, { creditCost: 10 });
    const job = await startBulk(p.http, [...learners.map((l) => ({ user_id: l.id, course_id: course.id })), { user_id: learners[0].id, course_id: course.id }]);
    await waitForJob(p.http, job.id);
    // xmin is the id of the transaction that inserted a row (the enrolment, debit and outcome rows are never updated
    // here); the outbox row is updated when dispatched, so it is matched by now(), the transaction's start time.
    const rows: Array<{ status: string; result_tx: string; enrollment_tx: string | null; debit_tx: string | null; result_at: Date; event_at: Date | null }> =
      await t.db.query(
        `SELECT r.status, r.xmin::text AS result_tx, e.xmin::text AS enrollment_tx, r.processed_at AS result_at,
              (SELECT c.xmin::text FROM credit_transactions c WHERE c.enrollment_id = e.id) AS debit_tx,
              (SELECT v.created_at FROM events v WHERE v.type = 'course.enrolled' AND (v.payload->>'enrollment_id')::int = e.id) AS event_at
         FROM job_results r LEFT JOIN enrollments e ON e.id = r.enrollment_id WHERE r.job_id = $1 ORDER BY r.index`,
        [job.id],
      );
    expect(rows.map((r) => r.status)).toEqual(['created', 'created', 'created', 'failed']);
    for (const r of rows.slice(0, 3)) {
      expect([r.enrollment_tx, r.debit_tx]).toEqual([r.result_tx, r.result_tx]);
      expect(r.event_at?.getTime()).toBe(r.result_at.getTime());
    }
    expect(new Set(rows.map((r) => r.result_tx)).size).toBe(4);
  });

  it('applies each row once when several runs of one job overlap (a duplicate queue entry, a stalled run taken over)', async () => {
    const learners = await Promise.all(Array.from({ length: 20 }, () => createLearner(p.http)));
    for (const l of learners) await topUp(p.http, l.id, 10);
    const { course } = await createCourse(t.db, { creditCost: 10 });
    const job = await startBulk(
      p.http,
      learners.map((l) => ({ user_id: l.id, course_id: course.id })),
    );
    // The worker of this app runs it too: three runs at once.
    const runner = t.app.get(BulkEnrollmentJob);
    await Promise.all([runner.run(job.id, false, () => false), runner.run(job.id, false, () => false)]);
    const done = await waitForJob(p.http, job.id);
    expect(done).toMatchObject({ processed: 20, succeeded: 20, failed: 0 });
    expect(await enrolledCount(course.id)).toBe(20);
    for (const l of learners.slice(0, 5)) expect(await ledgerOf(t.db, l.id)).toEqual({ balance: 0, sum: 0, rows: 2 });
    expect((await eventsOf(t.db, p.partnerId, 'course.enrolled')).filter((e) => e.payload.course_id === course.id)).toHaveLength(20);
  });

  it('accepts 1,000 rows with the longest ids (a body over 100 kB), and refuses 1,001', async () => {
    const { course } = await createCourse(t.db, { creditCost: 0 });
    const row = (i: number) => ({ external_user_id: `${i}-`.padEnd(128, 'x'), course_id: course.id, deduct_credits: false });
    const rows = Array.from({ length: 1000 }, (_, i) => row(i));
    expect(JSON.stringify({ enrollments: rows }).length).toBeGreaterThan(150_000);
    const job = await startBulk(p.http, rows);
    expect(job.total).toBe(1000);
    const tooMany = await p.http.post('/api/enroll/bulk', { enrollments: [...rows, row(1000)] });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.details).toEqual([{ field: 'enrollments', message: 'enrollments must hold at most 1000 rows' }]);
    const done = await waitForJob(p.http, job.id, 60_000);
    expect(done).toMatchObject({ processed: 1000, failed: 1000 });
    expect(new Set(done.results.map((r: any) => r.error.code))).toEqual(new Set(['user_not_found']));
    const huge = await p.http.post('/api/enroll/bulk', { enrollments: rows.map((r) => ({ ...r, external_user_id: r.external_user_id.padEnd(600, 'y') })) });
    expect(huge.status).toBe(413);
    expect(huge.body.error).toMatchObject({ code: 'payload_too_large', message: 'The request body is larger than 512 kB.' });
  });

  it('validates the whole request at once, naming fields like enrollments[3].course_id, and starts nothing', async () => {
    const before = (await p.http.get('/api/jobs')).body.data.total;
    const cases: Array<[unknown, Array<{ field: string }>]> = [
      [{ enrollments: [] }, [{ field: 'enrollments' }]],
      [
        {
          enrollments: [
            { user_id: 1, course_id: 1 },
            { user_id: 1, course_id: 1 },
            { user_id: 1, course_id: 1 },
            { user_id: 1, course_id: 'x' },
          ],
        },
        [{ field: 'enrollments[3].course_id' }],
      ],
      [{ enrollments: [{ user_id: 1, course_id: 1, extra: true }] }, [{ field: 'enrollments[0].extra' }]],
      [
        { enrollments: [{ user_id: 0, course_id: 1, deduct_credits: 'yes' }] },
        [{ field: 'enrollments[0].user_id' }, { field: 'enrollments[0].deduct_credits' }],
      ],
      [{ enrollments: [{ user_id: 1, course_id: 1 }, { course_id: 1 }] }, [{ field: 'enrollments[1].user_id' }]],
      [{ enrollments: [{ user_id: 1, course_id: 1 }], more: 1 }, [{ field: 'more' }]],
    ];
    for (const [body, fields] of cases) {
      const res = await p.http.post('/api/enroll/bulk', body);
      expect({ body, status: res.status, code: res.body.error?.code }).toEqual({ body, status: 400, code: 'validation_failed' });
      expect([...new Set(res.body.error.details.map((d: { field: string }) => d.field))]).toEqual(fields.map((f) => f.field));
    }
    for (const body of [{}, { enrollments: 'all' }, { enrollments: { user_id: 1, course_id: 1 } }]) {
      const res = await p.http.post('/api/enroll/bulk', body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(res.body.error.details).toContainEqual({ field: 'enrollments', message: 'enrollments must be an array' });
    }
    for (const item of [5, null, 'row', [1]]) {
      const res = await p.http.post('/api/enroll/bulk', { enrollments: [{ user_id: 1, course_id: 1 }, item] });
      expect({ item, status: res.status }).toEqual({ item, status: 400 });
      expect(res.body.error.details[0]).toEqual({ field: expect.stringMatching(/^enrollments\[1\]/), message: 'each row of enrollments must be an object' });
    }
    expect((await p.http.get('/api/jobs')).body.data.total).toBe(before);
  });

  it('returns the same job for a retry with the same Idempotency-Key, and refuses the key with another body', async () => {
    const learner = await createLearner(p.http);
    const { course } = await createCourse(t.db, { creditCost: 0 });
    const key = unique('idem');
    const body = { enrollments: [{ user_id: learner.id, course_id: course.id }] };
    const first = await p.http.post('/api/enroll/bulk', body, { headers: { 'Idempotency-Key': key } });
    const retry = await p.http.post('/api/enroll/bulk', body, { headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(202);
    expect(retry.status).toBe(202);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.data).toEqual(first.body.data);
    expect(retry.headers.get('location')).toBe(`/api/jobs/${first.body.data.job.id}`);
    const other = await p.http.post(
      '/api/enroll/bulk',
      { enrollments: [{ user_id: learner.id, course_id: course.id, deduct_credits: false }] },
      { headers: { 'Idempotency-Key': key } },
    );
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('idempotency_key_reused');
    await waitForJob(p.http, first.body.data.job.id);
    const [{ jobs }] = await t.db.query(`SELECT count(*)::int AS jobs FROM jobs WHERE partner_id = $1 AND input @> $2::jsonb`, [
      p.partnerId,
      JSON.stringify([{ user_id: learner.id }]),
    ]);
    expect(jobs).toBe(1);
    expect((await t.db.query(`SELECT count(*)::int AS n FROM enrollments WHERE user_id = $1`, [learner.id]))[0].n).toBe(1);
  });

  it('counts one call per row against the quota, and each poll as a call', async () => {
    const growth = await createPartner(t, { plan: 'growth' });
    const { course } = await createCourse(t.db, { creditCost: 0 });
    const learners = await Promise.all([0, 1, 2, 3, 4].map(() => createLearner(growth.http)));
    const remaining = async (res: { headers: Headers }) => Number(res.headers.get('x-quota-remaining'));
    const before = await remaining(await growth.http.get('/api/jobs'));
    const res = await growth.http.post('/api/enroll/bulk', { enrollments: learners.map((l) => ({ user_id: l.id, course_id: course.id })) });
    expect(await remaining(res)).toBe(before - 5);
    const poll = await growth.http.get(`/api/jobs/${res.body.data.job.id}`);
    expect(await remaining(poll)).toBe(before - 6);
    await waitForJob(growth.http, res.body.data.job.id);
  });

  it('belongs to the enrolment plan group: starter keys are refused', async () => {
    const starter = await createPartner(t, { plan: 'starter' });
    for (const res of [
      await starter.http.post('/api/enroll/bulk', { enrollments: [{ user_id: 1, course_id: 1 }] }),
      await starter.http.get('/api/jobs'),
      await starter.http.get('/api/jobs/job_0000000000000000000000'),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('endpoint_not_in_plan');
    }
  });
});

describe('GET /api/jobs and /api/jobs/{id}', () => {
  it('lists the caller’s jobs newest first, paginated, without results', async () => {
    const owner = await createPartner(t, { plan: 'growth' });
    const { course } = await createCourse(t.db, { creditCost: 0 });
    const learner = await createLearner(owner.http);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await startBulk(owner.http, [{ user_id: learner.id, course_id: course.id, deduct_credits: false }])).id);
    for (const id of ids) await waitForJob(owner.http, id);
    const page1 = await owner.http.get('/api/jobs?limit=2');
    expect(page1.status).toBe(200);
    expect(page1.body.data).toMatchObject({ total: 3, page: 1, pages: 2 });
    expect(page1.body.data.jobs.map((j: any) => j.id)).toEqual([ids[2], ids[1]]);
    expect(page1.body.data.jobs[0]).toEqual({
      id: ids[2],
      type: 'enrollment.bulk',
      status: 'completed',
      total: 1,
      processed: 1,
      succeeded: 0,
      failed: 1,
      created_at: expect.any(String),
      started_at: expect.any(String),
      completed_at: expect.any(String),
    });
    expect((await owner.http.get('/api/jobs?limit=2&page=2')).body.data.jobs.map((j: any) => j.id)).toEqual([ids[0]]);
    expect((await owner.http.get('/api/jobs?page=9')).body.data.jobs).toEqual([]);
    expect((await owner.http.get('/api/jobs?limit=101')).status).toBe(400);
  });

  it('hides a job from another partner and from the other mode (404 job_not_found), and its rows use the job’s scope', async () => {
    const owner = await createPartner(t, { plan: 'growth' });
    const learner = await createLearner(owner.http);
    const { course } = await createCourse(t.db, { creditCost: 0 });
    const job = await startBulk(owner.http, [{ user_id: learner.id, course_id: course.id }]);
    const others = [(await createPartner(t, { plan: 'enterprise' })).http, (await createKey(t, owner.partnerId, 'live')).http];
    for (const api of others) {
      const res = await api.get(`/api/jobs/${job.id}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('job_not_found');
      expect((await api.get('/api/jobs')).body.data.jobs.map((j: any) => j.id)).not.toContain(job.id);
    }
    // The other partner's bulk enrolment cannot reach the owner's learner.
    const stolen = await waitForJob(others[0], (await startBulk(others[0], [{ user_id: learner.id, course_id: course.id }])).id);
    expect(stolen.results).toEqual([{ index: 0, status: 'failed', error: { code: 'user_not_found', message: 'User not found.' } }]);
    expect((await waitForJob(owner.http, job.id)).succeeded).toBe(1);
    for (const id of ['job_0000000000000000000000', 'nope', 'job_' + 'x'.repeat(300)]) {
      expect((await owner.http.get(`/api/jobs/${id}`)).body.error.code).toBe('job_not_found');
    }
  });
});
