import { InTransactionHookMap, InTransactionHooks } from '../../src/events/hooks';
import type { Tx } from '../../src/events/transaction-runner';
import { startApp, TestApp } from '../support/app';
import { createCourse, createPartner, CreatedPartner } from '../support/factories';
import { countBy, createLearner, eventsOf, Learner } from './enrollment.helpers';

type CompletedInput = InTransactionHookMap['enrollment.completed']['input'];

let t: TestApp;
let p: CreatedPartner;
let completions: CompletedInput[];
beforeAll(async () => {
  t = await startApp();
  p = await createPartner(t, { plan: 'growth' });
});
afterAll(() => t.close());

/** Observes enrollment.completed; delegates to the certificates module's handler when it is registered. */
beforeEach(() => {
  completions = [];
  const hooks = t.app.get(InTransactionHooks);
  const original = hooks.handlerOf.bind(hooks);
  jest.spyOn(hooks, 'handlerOf').mockImplementation(((name: 'enrollment.completed') => async (tx: Tx, input: CompletedInput) => {
    completions.push(input);
    const real = original(name);
    return real ? real(tx, input) : { certificateId: `TST-2026-FAKE${input.enrollmentId}` };
  }) as never);
});
afterEach(() => jest.restoreAllMocks());

async function enrolled(topics: boolean[]): Promise<{ user: Learner; id: number; topicIds: number[] }> {
  const user = await createLearner(p.http, 'Ada Lovelace');
  const created = await createCourse(t.db, { creditCost: 0, topics });
  const res = await p.http.post('/api/enroll', { user_id: user.id, course_id: created.course.id });
  return { user, id: res.body.data.enrollment_id, topicIds: created.topics.map((x) => x.id) };
}

const progress = (id: number, body: object) => p.http.post(`/api/enrollments/${id}/progress`, body);

describe('POST /api/enrollments/:id/progress', () => {
  it('records a topic and answers the contract shape', async () => {
    const { id, topicIds } = await enrolled([false, true, false]);
    const res = await progress(id, { topic_id: topicIds[0] });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      enrollment_id: id,
      progress_percent: 33,
      completed_topics: 1,
      total_topics: 3,
      quizzes_pending: 1,
      status: 'active',
      completed_at: null,
      certificate_id: null,
    });
  });

  it('emits course.progress with the exact payload for each new topic', async () => {
    const { user, id, topicIds } = await enrolled([false, false, false]);
    await progress(id, { topic_id: topicIds[1] });
    await progress(id, { topic_id: topicIds[0] });
    const events = (await eventsOf(t.db, p.partnerId, 'course.progress')).filter((e) => e.payload.enrollment_id === id);
    const [{ title: title1 }] = await t.db.query(`SELECT title FROM topics WHERE id = $1`, [topicIds[1]]);
    expect(events.map((e) => e.payload)).toEqual([
      {
        enrollment_id: id,
        user_id: user.id,
        external_user_id: user.external_user_id,
        course_id: expect.any(Number),
        topic_id: topicIds[1],
        topic_title: title1,
        progress_percent: 33,
        completed_topics: 1,
        total_topics: 3,
      },
      expect.objectContaining({ topic_id: topicIds[0], progress_percent: 67, completed_topics: 2 }),
    ]);
  });

  it('changes nothing and emits nothing when a completed topic is repeated', async () => {
    const { id, topicIds } = await enrolled([false, false]);
    const first = await progress(id, { topic_id: topicIds[0] });
    const again = await progress(id, { topic_id: topicIds[0], quiz_passed: true });
    expect(again.body.data).toEqual(first.body.data);
    expect((await eventsOf(t.db, p.partnerId, 'course.progress')).filter((e) => e.payload.enrollment_id === id)).toHaveLength(1);
  });

  it('counts a has_quiz topic as passed only with quiz_passed: true', async () => {
    const { id, topicIds } = await enrolled([true, false]);
    await progress(id, { topic_id: topicIds[1] });
    const done = await progress(id, { topic_id: topicIds[0], quiz_passed: false });
    expect(done.body.data).toMatchObject({ completed_topics: 2, quizzes_pending: 1, progress_percent: 100, status: 'active', certificate_id: null });
    expect(completions).toHaveLength(0);
    // Passing the pending quiz later completes the course but is not a new topic (no course.progress).
    const passed = await progress(id, { topic_id: topicIds[0], quiz_passed: true });
    expect(passed.body.data).toMatchObject({ completed_topics: 2, quizzes_pending: 0, status: 'completed' });
    expect((await eventsOf(t.db, p.partnerId, 'course.progress')).filter((e) => e.payload.enrollment_id === id)).toHaveLength(2);
  });

  it('completes the enrolment and raises enrollment.completed in the same transaction on the last topic', async () => {
    const { user, id, topicIds } = await enrolled([false, true]);
    await progress(id, { topic_id: topicIds[0] });
    const res = await progress(id, { topic_id: topicIds[1], quiz_passed: true });
    expect(res.body.data).toMatchObject({ progress_percent: 100, completed_topics: 2, total_topics: 2, quizzes_pending: 0, status: 'completed' });
    expect(res.body.data.completed_at).toMatch(/Z$/);
    expect(typeof res.body.data.certificate_id).toBe('string');
    expect(completions).toEqual([{ enrollmentId: id, userId: user.id, courseId: expect.any(Number), completedAt: expect.any(Date), overrideQuiz: false }]);
    expect(completions[0].completedAt.toISOString()).toBe(res.body.data.completed_at);
    const view = (await p.http.get(`/api/enrollments/${id}`)).body.data;
    expect(view).toMatchObject({ status: 'completed', completed_at: res.body.data.completed_at, certificate_id: res.body.data.certificate_id });
    // Repeats after completion answer the same state and raise nothing.
    expect((await progress(id, { topic_id: topicIds[0] })).body.data).toEqual(res.body.data);
    expect(completions).toHaveLength(1);
  });

  it('rolls the completion back when the completion handler fails', async () => {
    const { id, topicIds } = await enrolled([false]);
    const hooks = t.app.get(InTransactionHooks);
    jest.spyOn(hooks, 'handlerOf').mockImplementation((() => async () => {
      throw new Error('certificate store down');
    }) as never);
    expect((await progress(id, { topic_id: topicIds[0] })).status).toBe(500);
    expect((await p.http.get(`/api/enrollments/${id}`)).body.data).toMatchObject({ status: 'active', completed_topics: 0 });
    expect((await eventsOf(t.db, p.partnerId, 'course.progress')).filter((e) => e.payload.enrollment_id === id)).toHaveLength(0);
  });

  it('answers 404 topic_not_found for a topic of another course', async () => {
    const { id } = await enrolled([false]);
    const other = await createCourse(t.db, { topics: [false] });
    for (const topicId of [other.topics[0].id, 2_000_000_000]) {
      const res = await progress(id, { topic_id: topicId });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('topic_not_found');
    }
  });

  it('answers 404 enrollment_not_found and 400 for an invalid body', async () => {
    expect((await progress(2_000_000_000, { topic_id: 1 })).body.error.code).toBe('enrollment_not_found');
    const { id } = await enrolled([false]);
    const bad = await progress(id, { topic_id: 'one', quiz_passed: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field)).toEqual(expect.arrayContaining(['topic_id', 'quiz_passed']));
  });

  it('is safe under parallel calls: every topic at once completes the course exactly once', async () => {
    const { id, topicIds } = await enrolled([false, false, false, false, false, false]);
    const calls = [...topicIds, ...topicIds].map((topicId) => progress(id, { topic_id: topicId }));
    const results = await Promise.all(calls);
    expect(countBy(results, (r) => r.status)).toEqual({ 200: 12 });
    expect(completions).toHaveLength(1);
    const events = (await eventsOf(t.db, p.partnerId, 'course.progress')).filter((e) => e.payload.enrollment_id === id);
    expect(events.map((e) => e.payload.completed_topics).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    expect((await p.http.get(`/api/enrollments/${id}`)).body.data).toMatchObject({ status: 'completed', completed_topics: 6 });
  });
});
