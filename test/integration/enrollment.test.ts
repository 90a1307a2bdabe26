import { startApp, TestApp } from '../support/app';
import { createCourse, createKey, createPartner, CreatedPartner, unique } from '../support/factories';
import { countBy, createLearner, eventsOf, ledgerOf, topUp } from './enrollment.helpers';

let t: TestApp;
let p: CreatedPartner;
beforeAll(async () => {
  t = await startApp();
  p = await createPartner(t, { plan: 'enterprise' });
});
afterAll(() => t.close());

const enrolledCount = async (courseId: number): Promise<number> => (await t.db.query(`SELECT course_enrolled($1) AS enrolled`, [courseId]))[0].enrolled;

describe('POST /api/enroll', () => {
  it('enrols by user_id, debits the cost and answers the contract shape', async () => {
    const user = await createLearner(p.http);
    await topUp(p.http, user.id, 40);
    const { course } = await createCourse(t.db, { creditCost: 15, enrolled: 3 });
    const res = await p.http.post('/api/enroll', { user_id: user.id, course_id: course.id });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      enrollment_id: expect.any(Number),
      user_id: user.id,
      external_user_id: user.external_user_id,
      course_id: course.id,
      status: 'active',
      progress_percent: 0,
      enrolled_at: expect.stringMatching(/Z$/),
      credits_deducted: 15,
      credits_remaining: 25,
    });
    expect(await enrolledCount(course.id)).toBe(4);
    expect(await ledgerOf(t.db, user.id)).toEqual({ balance: 25, sum: 25, rows: 2 });
    const [debit] = await t.db.query(`SELECT amount, kind, enrollment_id, balance_after FROM credit_transactions WHERE user_id = $1 AND kind = 'enrollment'`, [
      user.id,
    ]);
    expect(debit).toEqual({ amount: -15, kind: 'enrollment', enrollment_id: res.body.data.enrollment_id, balance_after: 25 });
  });

  it('records course.enrolled with the exact payload', async () => {
    const user = await createLearner(p.http);
    await topUp(p.http, user.id, 10);
    const { course } = await createCourse(t.db, { creditCost: 10 });
    const { data } = (await p.http.post('/api/enroll', { external_user_id: user.external_user_id, course_id: course.id })).body;
    const events = (await eventsOf(t.db, p.partnerId, 'course.enrolled')).filter((e) => e.payload.enrollment_id === data.enrollment_id);
    expect(events.map((e) => e.payload)).toEqual([
      {
        enrollment_id: data.enrollment_id,
        user_id: user.id,
        external_user_id: user.external_user_id,
        course_id: course.id,
        course_title: course.title,
        credits_deducted: 10,
        enrolled_at: data.enrolled_at,
      },
    ]);
  });

  it('enrols by external_user_id alone, and by both when they name the same learner', async () => {
    const user = await createLearner(p.http);
    const [a, b] = [await createCourse(t.db, { creditCost: 0 }), await createCourse(t.db, { creditCost: 0 })];
    expect((await p.http.post('/api/enroll', { external_user_id: user.external_user_id, course_id: a.course.id })).status).toBe(201);
    expect((await p.http.post('/api/enroll', { user_id: user.id, external_user_id: user.external_user_id, course_id: b.course.id })).status).toBe(201);
  });

  it('answers 400 when user_id and external_user_id name different learners, or neither is given', async () => {
    const [u1, u2] = [await createLearner(p.http), await createLearner(p.http)];
    const { course } = await createCourse(t.db, { creditCost: 0 });
    const mismatch = await p.http.post('/api/enroll', { user_id: u1.id, external_user_id: u2.external_user_id, course_id: course.id });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.code).toBe('validation_failed');
    expect((await p.http.post('/api/enroll', { course_id: course.id })).status).toBe(400);
    expect(await enrolledCount(course.id)).toBe(0);
  });

  it('answers 404 user_not_found for an unknown learner (no implicit creation)', async () => {
    const { course } = await createCourse(t.db, { creditCost: 0 });
    for (const ref of [{ user_id: 2_000_000_000 }, { external_user_id: unique('ghost') }]) {
      const res = await p.http.post('/api/enroll', { ...ref, course_id: course.id });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('user_not_found');
    }
  });

  it('answers 404 course_not_found for an unpublished or unknown course', async () => {
    const user = await createLearner(p.http);
    await topUp(p.http, user.id, 100);
    const { course } = await createCourse(t.db, { published: false });
    for (const courseId of [course.id, 2_000_000_000]) {
      const res = await p.http.post('/api/enroll', { user_id: user.id, course_id: courseId });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('course_not_found');
    }
    expect(await enrolledCount(course.id)).toBe(0);
    expect((await ledgerOf(t.db, user.id)).balance).toBe(100);
  });

  it('answers 402 with required and available when the balance is too low, writing nothing', async () => {
    const user = await createLearner(p.http);
    await topUp(p.http, user.id, 9);
    const { course } = await createCourse(t.db, { creditCost: 10 });
    const res = await p.http.post('/api/enroll', { user_id: user.id, course_id: course.id });
    expect(res.status).toBe(402);
    expect(res.body.error).toMatchObject({ code: 'insufficient_credits', details: { required: 10, available: 9 } });
    expect(await enrolledCount(course.id)).toBe(0);
    expect(await ledgerOf(t.db, user.id)).toEqual({ balance: 9, sum: 9, rows: 1 });
    expect(await t.db.query(`SELECT 1 FROM enrollments WHERE user_id = $1`, [user.id])).toHaveLength(0);
    expect((await eventsOf(t.db, p.partnerId, 'course.enrolled')).filter((e) => e.payload.user_id === user.id)).toHaveLength(0);
  });

  it('answers 402 with available 0 for a learner who never had credits', async () => {
    const user = await createLearner(p.http);
    const { course } = await createCourse(t.db, { creditCost: 1 });
    const res = await p.http.post('/api/enroll', { user_id: user.id, course_id: course.id });
    expect(res.body.error.details).toEqual({ required: 1, available: 0 });
  });

  it('enrols without debit when deduct_credits is false', async () => {
    const user = await createLearner(p.http);
    await topUp(p.http, user.id, 5);
    const { course } = await createCourse(t.db, { creditCost: 50 });
    const res = await p.http.post('/api/enroll', { user_id: user.id, course_id: course.id, deduct_credits: false });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ credits_deducted: 0, credits_remaining: 5 });
    expect(await ledgerOf(t.db, user.id)).toEqual({ balance: 5, sum: 5, rows: 1 });
  });

  it('answers 409 already_enrolled with the enrolment id, debiting once', async () => {
    const user = await createLearner(p.http);
    await topUp(p.http, user.id, 100);
    const { course } = await createCourse(t.db, { creditCost: 10 });
    const first = await p.http.post('/api/enroll', { user_id: user.id, course_id: course.id });
    const again = await p.http.post('/api/enroll', { user_id: user.id, course_id: course.id });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'already_enrolled', details: { enrollment_id: first.body.data.enrollment_id } });
    expect((await ledgerOf(t.db, user.id)).balance).toBe(90);
  });

  it('validates course_id and deduct_credits', async () => {
    const user = await createLearner(p.http);
    const res = await p.http.post('/api/enroll', { user_id: user.id, course_id: 'x', deduct_credits: 'yes' });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(expect.arrayContaining(['course_id', 'deduct_credits']));
  });

  it('never overspends: 50 parallel enrolments into 50 courses with credits for 7', async () => {
    const user = await createLearner(p.http);
    await topUp(p.http, user.id, 7 * 20);
    const courses = await Promise.all(Array.from({ length: 50 }, () => createCourse(t.db, { creditCost: 20, topics: [false] })));
    const results = await Promise.all(courses.map(({ course }) => p.http.post('/api/enroll', { user_id: user.id, course_id: course.id })));
    expect(countBy(results, (r) => r.status)).toEqual({ 201: 7, 402: 43 });
    expect(await ledgerOf(t.db, user.id)).toEqual({ balance: 0, sum: 0, rows: 8 });
    const counts = await Promise.all(courses.map(({ course }) => enrolledCount(course.id)));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(7);
    expect(await t.db.query(`SELECT 1 FROM enrollments WHERE user_id = $1`, [user.id])).toHaveLength(7);
  });

  it('never double-enrols: 20 parallel identical enrolments give one 201 and nineteen 409', async () => {
    const user = await createLearner(p.http);
    await topUp(p.http, user.id, 1000);
    const { course } = await createCourse(t.db, { creditCost: 10, enrolled: 5 });
    const results = await Promise.all(Array.from({ length: 20 }, () => p.http.post('/api/enroll', { user_id: user.id, course_id: course.id })));
    expect(countBy(results, (r) => r.status)).toEqual({ 201: 1, 409: 19 });
    const id = results.find((r) => r.status === 201)!.body.data.enrollment_id;
    expect(results.filter((r) => r.status === 409).every((r) => r.body.error.details.enrollment_id === id)).toBe(true);
    expect(await enrolledCount(course.id)).toBe(6);
    expect(await ledgerOf(t.db, user.id)).toEqual({ balance: 990, sum: 990, rows: 2 });
  });

  it('never loses a count: 30 learners enrolling in one course at once', async () => {
    const { course } = await createCourse(t.db, { creditCost: 3 });
    const users = await Promise.all(Array.from({ length: 30 }, () => createLearner(p.http)));
    await Promise.all(users.map((u) => topUp(p.http, u.id, 3)));
    const results = await Promise.all(users.map((u) => p.http.post('/api/enroll', { user_id: u.id, course_id: course.id })));
    expect(results.every((r) => r.status === 201 && r.body.data.credits_remaining === 0)).toBe(true);
    expect(await enrolledCount(course.id)).toBe(30);
  });
});

describe('reading enrolments', () => {
  it('GET /api/enrollments/:id answers the enrolment with its progress', async () => {
    const user = await createLearner(p.http);
    const { course } = await createCourse(t.db, { creditCost: 0, topics: [false, true, false] });
    const { data } = (await p.http.post('/api/enroll', { user_id: user.id, course_id: course.id })).body;
    const res = await p.http.get(`/api/enrollments/${data.enrollment_id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      enrollment_id: data.enrollment_id,
      user_id: user.id,
      external_user_id: user.external_user_id,
      course_id: course.id,
      status: 'active',
      progress_percent: 0,
      completed_topics: 0,
      total_topics: 3,
      quizzes_pending: 1,
      credits_deducted: 0,
      enrolled_at: data.enrolled_at,
      completed_at: null,
      certificate_id: null,
    });
  });

  it('GET /api/users/:id/enrollments lists a learner’s enrolments, paginated', async () => {
    const user = await createLearner(p.http);
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const { course } = await createCourse(t.db, { creditCost: 0 });
      ids.push((await p.http.post('/api/enroll', { user_id: user.id, course_id: course.id })).body.data.enrollment_id);
    }
    const res = await p.http.get(`/api/users/${user.id}/enrollments?limit=2`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ total: 3, page: 1, pages: 2 });
    expect(res.body.data.enrollments.map((e: { enrollment_id: number }) => e.enrollment_id)).toEqual([ids[2], ids[1]]);
    expect((await p.http.get(`/api/users/${(await createLearner(p.http)).id}/enrollments`)).body.data).toEqual({
      enrollments: [],
      total: 0,
      page: 1,
      pages: 0,
    });
  });

  it('answers 404 for unknown ids and 400 for malformed ones', async () => {
    expect((await p.http.get('/api/enrollments/2000000000')).body.error.code).toBe('enrollment_not_found');
    expect((await p.http.get('/api/users/2000000000/enrollments')).body.error.code).toBe('user_not_found');
    expect((await p.http.get('/api/enrollments/abc')).status).toBe(400);
  });

  it('hides enrolments from another partner and from the other mode', async () => {
    const user = await createLearner(p.http);
    await topUp(p.http, user.id, 10);
    const { course } = await createCourse(t.db, { creditCost: 0 });
    const { data } = (await p.http.post('/api/enroll', { user_id: user.id, course_id: course.id })).body;
    for (const api of [(await createPartner(t, { plan: 'growth' })).http, (await createKey(t, p.partnerId, 'live')).http]) {
      expect((await api.get(`/api/enrollments/${data.enrollment_id}`)).body.error.code).toBe('enrollment_not_found');
      expect((await api.get(`/api/users/${user.id}/enrollments`)).body.error.code).toBe('user_not_found');
      expect((await api.post(`/api/enrollments/${data.enrollment_id}/progress`, { topic_id: 1 })).body.error.code).toBe('enrollment_not_found');
      expect((await api.post('/api/enroll', { user_id: user.id, course_id: course.id })).body.error.code).toBe('user_not_found');
    }
  });

  it('is not in the starter plan (401 endpoint_not_in_plan)', async () => {
    const starter = await createPartner(t, { plan: 'starter' });
    for (const res of [await starter.http.post('/api/enroll', { user_id: 1, course_id: 1 }), await starter.http.get('/api/enrollments/1')]) {
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('endpoint_not_in_plan');
    }
  });
});
