import { randomInt } from 'node:crypto';
import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from '../../sdk/src/generated/openapi';
import { startApp, TestApp } from '../support/app';
import { createAdmin, unique } from '../support/factories';
import { OpenApiDriftError, validatorFor } from '../support/openapi-validator';

/**
 * One partner's whole journey through the client generated from the OpenAPI document (the partner SDK's types, `npm run sdk:generate`):
 * if a path, a body or a response shape in the document were wrong, this file would not type-check or would fail.
 */
let t: TestApp;
beforeAll(async () => {
  // Registration is limited per client IP (5 an hour): behind a trusted proxy this test is a client of its own.
  t = await startApp({ TRUST_PROXY: '1' });
  // Like a load balancer, start once the instance reports ready: the first call (registration) needs Redis at once.
  const deadline = Date.now() + 10_000;
  while ((await fetch(`${t.baseUrl}/health/ready`)).status !== 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
});
afterAll(() => t.close());

/** A typed client for one key; every response is also checked against the served document, as the HttpClient does. */
function client(key?: string) {
  const api = createClient<paths>({ baseUrl: t.baseUrl, headers: key ? { 'X-API-Key': key } : {} });
  const checkAgainstDocument: Middleware = {
    async onResponse({ request, response }) {
      const url = new URL(request.url);
      const text = await response.clone().text();
      const problem = (await validatorFor(t.baseUrl)).check({
        method: request.method,
        path: url.pathname + url.search,
        status: response.status,
        contentType: response.headers.get('content-type'),
        body: text ? JSON.parse(text) : undefined,
      });
      if (problem) throw new OpenApiDriftError(problem);
      return undefined;
    },
  };
  api.use(checkAgainstDocument);
  return api;
}

/** The `data` of a success envelope, failing with the error envelope when there is none. */
function dataOf<T>(result: { data?: { status: 'success'; data: T }; error?: unknown; response: Response }, status: number): T {
  expect({ status: result.response.status, error: result.error }).toEqual({ status, error: undefined });
  return result.data!.data;
}

describe('partner journey through the generated client', () => {
  it('registers, upgrades, tops up, enrols, completes every topic and verifies the certificate publicly', async () => {
    const anonymous = client();

    // 1. Self-service registration: a starter partner with a test key.
    const registration = dataOf(
      await anonymous.POST('/api/partners/register', {
        body: { name: unique('Journey Partner'), email: `${unique('journey')}@example.com`, website: 'https://journey.example' },
        headers: { 'X-Forwarded-For': `198.51.100.${randomInt(1, 255)}, 10.0.0.${randomInt(1, 255)}` },
      }),
      201,
    );
    expect(registration.partner).toMatchObject({ plan: 'starter', status: 'active' });
    expect(registration.api_key.mode).toBe('test');
    const partner = client(registration.api_key.key);

    // 2. Starter keys reach the catalogue only: an operator upgrades the partner to growth.
    const admin = client((await createAdmin(t)).key);
    const upgraded = dataOf(
      await admin.PATCH('/api/admin/partners/{id}', { params: { path: { id: registration.partner.id } }, body: { plan: 'growth' } }),
      200,
    );
    expect(upgraded.plan).toBe('growth');
    const me = dataOf(await partner.GET('/api/partners/me'), 200);
    expect({ plan: me.plan, mode: me.mode }).toEqual({ plan: 'growth', mode: 'test' });

    // 3. The operator publishes a course with topics (the second has a quiz).
    const draft = dataOf(
      await admin.POST('/api/admin/courses', {
        body: {
          title: unique('Journey Course'),
          description: 'Everything a journey needs.',
          category: unique('Journeys'),
          level: 'Beginner',
          credit_cost: 25,
          tutor: { name: unique('Tutor'), bio: 'Walks learners through journeys.' },
          topics: [
            { title: 'Setting off', duration_minutes: 30, has_quiz: false },
            { title: 'Half way', duration_minutes: 45, has_quiz: true },
            { title: 'Arriving', duration_minutes: 20, has_quiz: false },
          ],
        },
      }),
      201,
    );
    expect(draft.published).toBe(false);
    const course = dataOf(await admin.POST('/api/admin/courses/{id}/publish', { params: { path: { id: draft.id } } }), 200);
    expect(course.published).toBe(true);
    expect(course.topics).toHaveLength(3);

    // 4. A learner with enough credits.
    const user = dataOf(
      await partner.POST('/api/users', { body: { external_user_id: unique('learner'), name: 'Grace Hopper', email: `${unique('grace')}@example.com` } }),
      201,
    );
    const topUp = dataOf(
      await partner.POST('/api/credits/topup', { body: { user_id: user.id, amount: 100, source: 'journey', reference: unique('order') } }),
      201,
    );
    expect(topUp).toMatchObject({ user_id: user.id, amount: 100, credits: 100 });

    // 5. Enrolment pays the course with credits.
    const enrolment = dataOf(await partner.POST('/api/enroll', { body: { user_id: user.id, course_id: course.id } }), 201);
    expect(enrolment).toMatchObject({ status: 'active', progress_percent: 0, credits_deducted: 25, credits_remaining: 75 });
    const balance = dataOf(await partner.GET('/api/credits/balance/{user_id}', { params: { path: { user_id: user.id } } }), 200);
    expect(balance.credits).toBe(75);

    // 6. Every topic, passing the quiz where there is one, until the course completes.
    let progress;
    for (const topic of course.topics) {
      progress = dataOf(
        await partner.POST('/api/enrollments/{id}/progress', {
          params: { path: { id: enrolment.enrollment_id } },
          body: topic.has_quiz ? { topic_id: topic.id, quiz_passed: true } : { topic_id: topic.id },
        }),
        200,
      );
    }
    expect(progress).toMatchObject({ status: 'completed', progress_percent: 100, completed_topics: 3, total_topics: 3, quizzes_pending: 0 });
    expect(progress!.completed_at).toEqual(expect.any(String));
    const certificateId = progress!.certificate_id;
    expect(certificateId).toMatch(/^TST-\d{4}-[0-9A-HJKMNP-TV-Z]{10}$/);

    // 7. Anyone can verify the certificate, without a key and without an envelope.
    const verified = await anonymous.GET('/api/certificates/verify/{cert_id}', { params: { path: { cert_id: certificateId! } } });
    expect(verified.response.status).toBe(200);
    expect(verified.data).toEqual({
      valid: true,
      test: true,
      certificate: { id: certificateId, holder_name: 'Grace Hopper', course_title: course.title, issued_at: expect.any(String), platform: expect.any(String) },
    });
  });
});
