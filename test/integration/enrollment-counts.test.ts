import { CoursesService } from '../../src/courses/courses.service';
import { startApp, TestApp } from '../support/app';
import { createCourse, createPartner, CreatedPartner, unique } from '../support/factories';
import { createLearner, topUp } from './enrollment.helpers';

/** Enrolment counts live in per-course counter shards (no hot course row); every read shows the exact count. */
let t: TestApp;
let p: CreatedPartner;
beforeAll(async () => {
  t = await startApp();
  p = await createPartner(t, { plan: 'enterprise' });
});
afterAll(() => t.close());

async function enrolMany(courseId: number, n: number): Promise<void> {
  const learners = await Promise.all(Array.from({ length: n }, () => createLearner(p.http)));
  await Promise.all(learners.map((l) => topUp(p.http, l.id, 10)));
  const answers = await Promise.all(learners.map((l) => p.http.post('/api/enroll', { user_id: l.id, course_id: courseId })));
  expect(answers.map((a) => a.status)).toEqual(learners.map(() => 201));
}

const counts = async (courseId: number) =>
  (
    await t.db.query(
      `SELECT c.enrolled AS folded, coalesce((SELECT sum(n) FROM course_enrollment_counts s WHERE s.course_id = c.id), 0)::int AS shards,
              course_enrolled(c.id) AS exact, (SELECT count(*) FROM enrollments e WHERE e.course_id = c.id)::int AS rows
         FROM courses c WHERE c.id = $1`,
      [courseId],
    )
  )[0];

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('enrolment counts', () => {
  it('concurrent enrolments into one course are each counted once', async () => {
    const { course } = await createCourse(t.db, { creditCost: 5, enrolled: 7 });
    await enrolMany(course.id, 24);
    const c = await counts(course.id);
    expect(c.exact).toBe(7 + 24);
    expect(c.rows).toBe(24);
    expect(c.folded + c.shards).toBe(c.exact);
  });

  it('list and detail show the exact count right after enrolling', async () => {
    const category = unique('Cat');
    const { course } = await createCourse(t.db, { category, creditCost: 5, enrolled: 2 });
    await enrolMany(course.id, 3);
    const detail = await p.http.get(`/api/courses/${course.id}`);
    const list = await p.http.get(`/api/courses?category=${category}`);
    expect(detail.body.data.enrolled).toBe(5);
    expect(list.body.data.courses.map((c: { id: number; enrolled: number }) => [c.id, c.enrolled])).toEqual([[course.id, 5]]);
  });

  it('folding moves the shards into courses.enrolled and leaves the exact count unchanged', async () => {
    const { course } = await createCourse(t.db, { creditCost: 5 });
    await enrolMany(course.id, 4);
    await t.app.get(CoursesService).foldEnrollmentCounts();
    // A worker of another app may fold at the same time: either way everything ends up folded.
    const c = await until(
      () => counts(course.id),
      (v) => v.shards === 0,
    );
    expect(c).toEqual({ folded: 4, shards: 0, exact: 4, rows: 4 });
  });

  it('the worker folds every second, so the popular sort follows enrolments', async () => {
    const category = unique('Cat');
    const { course: leader } = await createCourse(t.db, { category, enrolled: 3 });
    const { course: climber } = await createCourse(t.db, { category, creditCost: 5, enrolled: 2 });
    await enrolMany(climber.id, 2);
    const c = await until(
      () => counts(climber.id),
      (v) => v.folded === 4,
    );
    expect(c.folded).toBe(4);
    const order = await until(
      async () => (await p.http.get(`/api/courses?category=${category}&sort=popular`)).body.data.courses.map((x: { id: number }) => x.id),
      (ids: number[]) => ids[0] === climber.id,
    );
    expect(order).toEqual([climber.id, leader.id]);
  });
});
