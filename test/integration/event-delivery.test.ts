import { createHmac, timingSafeEqual } from 'node:crypto';
import { startApp, TestApp } from '../support/app';
import { createCourse, createPartner, CreatedPartner } from '../support/factories';
import { waitFor, WebhookReceiver } from '../support/webhook-receiver';
import { createLearner } from './enrollment.helpers';
import { createUser, liveWebinar } from './webinar.helpers';

/**
 * The business flows of certificates and webinars, end to end to a real receiver: the events they raise
 * arrive signed, once, with the contract's payloads (contract section 11).
 */
let t: TestApp;
let receiver: WebhookReceiver;
const SECRET = 'event-delivery-secret-0123456789';

beforeAll(async () => {
  t = await startApp();
  receiver = await new WebhookReceiver().start();
});
afterAll(async () => {
  await receiver.stop();
  await t.close();
});

async function subscribe(p: CreatedPartner, path: string, events: string[]): Promise<void> {
  const res = await p.http.post('/api/connect/webhooks', { url: receiver.url(path), events, secret: SECRET });
  expect(res.status).toBe(201);
}

/** Verifies X-SVC-Signature independently (node:crypto) and returns the parsed envelopes by event type. */
function envelopes(path: string): Record<string, Array<{ event: string; timestamp: string; webhook_id: string; data: Record<string, unknown> }>> {
  const out: Record<string, any[]> = {};
  for (const r of receiver.at(path)) {
    const expected = Buffer.from(`sha256=${createHmac('sha256', SECRET).update(r.body).digest('hex')}`);
    const given = Buffer.from(String(r.headers['x-svc-signature']));
    expect(given.length === expected.length && timingSafeEqual(given, expected)).toBe(true);
    const envelope = JSON.parse(r.body.toString('utf8'));
    expect(r.headers['x-svc-event']).toBe(envelope.event);
    expect(r.headers['x-svc-delivery']).toBe(envelope.webhook_id);
    (out[envelope.event] ??= []).push(envelope);
  }
  return out;
}

describe('events of the business flows reach a real receiver', () => {
  it('delivers course.completed (exactly the spec fields) and certificate.issued when a learner completes a course', async () => {
    const p = await createPartner(t, { plan: 'growth' });
    await subscribe(p, '/completion', ['course.completed', 'certificate.issued']);
    const { course, topics } = await createCourse(t.db, { creditCost: 0, topics: [false, true] });
    const learner = await createLearner(p.http, 'Grace Hopper');
    const enrolled = await p.http.post('/api/enroll', { user_id: learner.id, course_id: course.id });
    expect(enrolled.status).toBe(201);
    await p.http.post(`/api/enrollments/${enrolled.body.data.enrollment_id}/progress`, { topic_id: topics[0].id });
    const done = await p.http.post(`/api/enrollments/${enrolled.body.data.enrollment_id}/progress`, { topic_id: topics[1].id, quiz_passed: true });
    expect(done.body.data).toMatchObject({ status: 'completed', progress_percent: 100 });
    const certificateId = done.body.data.certificate_id;

    await waitFor(() => receiver.at('/completion').length >= 2, 10_000, 'both events');
    const got = envelopes('/completion');
    expect(got['course.completed']).toHaveLength(1);
    expect(got['certificate.issued']).toHaveLength(1);
    expect(got['course.completed'][0].data).toEqual({
      user_id: learner.id,
      user_name: 'Grace Hopper',
      user_email: learner.email,
      external_user_id: learner.external_user_id,
      course_id: course.id,
      course_title: course.title,
      completed_at: done.body.data.completed_at,
      certificate_id: certificateId,
    });
    expect(got['certificate.issued'][0].data).toEqual({
      certificate_id: certificateId,
      user_id: learner.id,
      external_user_id: learner.external_user_id,
      course_id: course.id,
      course_title: course.title,
      holder_name: 'Grace Hopper',
      issued_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      download_url: `http://localhost:3999/api/certificates/${certificateId}/download`,
      verify_url: `http://localhost:3999/verify/${certificateId}`,
    });
  });

  it('delivers webinar.started, one webinar.joined per join and webinar.ended through the API lifecycle', async () => {
    const p = await createPartner(t, { plan: 'growth' });
    await subscribe(p, '/webinar', ['webinar.started', 'webinar.joined', 'webinar.ended']);
    const w = await liveWebinar(p, { title: 'Live Q&A' });
    const a = await createUser(p, 'Attendee A');
    const b = await createUser(p, 'Attendee B');
    expect((await p.http.post(`/api/webinars/${w.webinar_id}/join`, { user_id: a.id })).status).toBe(200);
    expect((await p.http.post(`/api/webinars/${w.webinar_id}/join`, { external_user_id: b.external_user_id })).status).toBe(200);
    const ended = await p.http.post(`/api/webinars/${w.webinar_id}/end`);
    expect(ended.status).toBe(200);

    await waitFor(() => receiver.at('/webinar').length >= 4, 10_000, 'four webinar events');
    const got = envelopes('/webinar');
    expect(got['webinar.started']).toHaveLength(1);
    expect(got['webinar.started'][0].data).toEqual({
      webinar_id: w.webinar_id,
      title: 'Live Q&A',
      started_at: ended.body.data.started_at,
      attendee_join_url: w.attendee_join_url,
      embed_url: w.embed_url,
    });
    expect(got['webinar.joined'].map((e) => e.data.user_id).sort()).toEqual([a.id, b.id].sort());
    expect(got['webinar.joined'].find((e) => e.data.user_id === a.id)!.data).toEqual({
      webinar_id: w.webinar_id,
      user_id: a.id,
      external_user_id: a.external_user_id,
      name: 'Attendee A',
      email: a.email,
      joined_at: expect.stringMatching(/Z$/),
    });
    expect(got['webinar.ended']).toHaveLength(1);
    expect(got['webinar.ended'][0].data).toEqual({
      webinar_id: w.webinar_id,
      title: 'Live Q&A',
      started_at: ended.body.data.started_at,
      ended_at: ended.body.data.ended_at,
      duration_minutes: ended.body.data.duration_minutes,
      attendance_count: 2,
      peak_concurrent_attendees: 0,
      total_watch_minutes: 0,
    });
  });

  it('delivers user.registered, credits.purchased, course.enrolled and course.progress from the API flows', async () => {
    const p = await createPartner(t, { plan: 'growth' });
    await subscribe(p, '/learning', ['user.registered', 'credits.purchased', 'course.enrolled', 'course.progress']);
    const { course, topics } = await createCourse(t.db, { creditCost: 5, topics: [false, false] });
    const learner = await createLearner(p.http, 'Alan Turing');
    const topup = await p.http.post('/api/credits/topup', { user_id: learner.id, amount: 20, source: 'card', reference: 'pay_123' });
    const enrolled = await p.http.post('/api/enroll', { external_user_id: learner.external_user_id, course_id: course.id });
    const progress = await p.http.post(`/api/enrollments/${enrolled.body.data.enrollment_id}/progress`, { topic_id: topics[0].id });
    expect([topup.status, enrolled.status, progress.status]).toEqual([201, 201, 200]);

    await waitFor(() => receiver.at('/learning').length >= 4, 10_000, 'four events');
    const got = envelopes('/learning');
    expect(got['user.registered'][0].data).toEqual({
      user_id: learner.id,
      external_user_id: learner.external_user_id,
      name: 'Alan Turing',
      email: learner.email,
      registered_at: expect.stringMatching(/Z$/),
    });
    expect(got['credits.purchased'][0].data).toEqual({
      transaction_id: topup.body.data.transaction_id,
      user_id: learner.id,
      external_user_id: learner.external_user_id,
      amount: 20,
      payment_reference: 'pay_123',
      source: 'card',
      credits: 20,
      purchased_at: topup.body.data.created_at,
    });
    expect(got['course.enrolled'][0].data).toEqual({
      enrollment_id: enrolled.body.data.enrollment_id,
      user_id: learner.id,
      external_user_id: learner.external_user_id,
      course_id: course.id,
      course_title: course.title,
      credits_deducted: 5,
      enrolled_at: enrolled.body.data.enrolled_at,
    });
    expect(got['course.progress'][0].data).toEqual({
      enrollment_id: enrolled.body.data.enrollment_id,
      user_id: learner.id,
      external_user_id: learner.external_user_id,
      course_id: course.id,
      topic_id: topics[0].id,
      topic_title: topics[0].title,
      progress_percent: 50,
      completed_topics: 1,
      total_topics: 2,
    });
    for (const list of Object.values(got)) expect(list).toHaveLength(1);
  });
});
