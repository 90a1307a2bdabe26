import { startApp, TestApp } from '../support/app';
import { createCourse, createPartner, CreatedPartner, unique } from '../support/factories';
import { createLearner, topUp } from './enrollment.helpers';

/** Catalogue list and detail send a strong ETag and answer a current If-None-Match with 304, still keyed and counted. */
let t: TestApp;
let p: CreatedPartner;
beforeAll(async () => {
  t = await startApp();
  p = await createPartner(t, { plan: 'growth' });
});
afterAll(() => t.close());

const remaining = (res: { headers: Headers }) => Number(res.headers.get('X-Quota-Remaining'));

describe('conditional catalogue reads', () => {
  it.each([
    ['the list', async () => `/api/courses?category=${(await createCourse(t.db, { category: unique('Cat') })).course.category}`],
    ['a course', async () => `/api/courses/${(await createCourse(t.db)).course.id}`],
  ])('%s: If-None-Match with the current ETag is 304 with no body', async (_what, pathOf) => {
    const path = await pathOf();
    const first = await p.http.get(path);
    const etag = first.headers.get('ETag');
    expect(first.status).toBe(200);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(first.headers.get('Content-Type')).toBe('application/json; charset=utf-8');
    const again = await p.http.get(path, { headers: { 'If-None-Match': etag! } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('ETag')).toBe(etag);
    expect(again.headers.get('X-Request-Id')).toBeTruthy();
    const stale = await p.http.get(path, { headers: { 'If-None-Match': '"not-the-current-one"' } });
    expect(stale.status).toBe(200);
    expect(stale.body).toEqual(first.body);
  });

  it('a 304 still counts against the quota and the rate limit', async () => {
    const path = `/api/courses/${(await createCourse(t.db)).course.id}`;
    const first = await p.http.get(path);
    const second = await p.http.get(path, { headers: { 'If-None-Match': first.headers.get('ETag')! } });
    const third = await p.http.get(path, { headers: { 'If-None-Match': first.headers.get('ETag')! } });
    expect([second.status, third.status]).toEqual([304, 304]);
    expect([remaining(second), remaining(third)]).toEqual([remaining(first) - 1, remaining(first) - 2]);
    expect(third.headers.get('RateLimit')).toMatch(/;r=\d+;/);
  });

  it('a 304 needs a valid key like any call', async () => {
    const path = `/api/courses/${(await createCourse(t.db)).course.id}`;
    const { headers } = await p.http.get(path);
    const anonymous = await t.http.get(path, { headers: { 'If-None-Match': headers.get('ETag')! } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('missing_api_key');
  });

  it('an enrolment changes the ETag, so the old one gets the new body', async () => {
    const { course } = await createCourse(t.db, { creditCost: 5, enrolled: 1 });
    const path = `/api/courses/${course.id}`;
    const before = await p.http.get(path);
    const learner = await createLearner(p.http);
    await topUp(p.http, learner.id, 5);
    expect((await p.http.post('/api/enroll', { user_id: learner.id, course_id: course.id })).status).toBe(201);
    const after = await p.http.get(path, { headers: { 'If-None-Match': before.headers.get('ETag')! } });
    expect(after.status).toBe(200);
    expect(after.body.data.enrolled).toBe(2);
    expect(after.headers.get('ETag')).not.toBe(before.headers.get('ETag'));
  });
});
