import { PartnersService } from '../../../src/partners/partners.service';
import { startApp, TestApp } from '../../support/app';
import { createCourse, createKey, createPartner, CreatedPartner, unique } from '../../support/factories';
import { issueCertificate } from '../certificate.helpers';

/**
 * Issue 26, finding 5: a test-mode admin key had full live powers (it revoked a live certificate, issued a live key,
 * read a live learner). Test-mode admin keys now act on test data only: the other mode's records are as unknown to
 * them as to a partner's test key (404), and what reaches live data or the shared account is 403 admin_only.
 */
let t: TestApp;
let testAdmin: CreatedPartner;
let test: CreatedPartner;
let live: CreatedPartner;

beforeAll(async () => {
  t = await startApp();
  const key = await t.app.get(PartnersService).createAdminKey(unique('test-admin'), 'test');
  testAdmin = { partnerId: 0, key: key.key, keyId: key.id, mode: 'test', http: t.http.withKey(key.key) };
  test = await createPartner(t, { plan: 'enterprise' });
  live = await createKey(t, test.partnerId, 'live');
});
afterAll(() => t.close());

const asPartner = (mode?: 'test' | 'live') => ({ headers: { 'X-Partner-Id': String(test.partnerId), ...(mode ? { 'X-Partner-Mode': mode } : {}) } });
const LIVE_ONLY = { status: 403, code: 'admin_only' };
const answer = (res: { status: number; body: any }) => ({ status: res.status, code: res.body?.error?.code });

describe('a test-mode admin key acts on test data only', () => {
  it('cannot revoke a live certificate (404), and can revoke a test one', async () => {
    const liveCert = await issueCertificate(t, live);
    expect(answer(await testAdmin.http.post(`/api/admin/certificates/${liveCert.certificateId}/revoke`))).toEqual({
      status: 404,
      code: 'certificate_not_found',
    });
    expect((await t.http.get(`/api/certificates/verify/${liveCert.certificateId}`)).body.valid).toBe(true);
    const testCert = await issueCertificate(t, test);
    expect((await testAdmin.http.post(`/api/admin/certificates/${testCert.certificateId}/revoke`)).status).toBe(200);
  });

  it('cannot issue a live key (403 admin_only), and can issue a test one', async () => {
    const refused = await testAdmin.http.post(`/api/admin/partners/${test.partnerId}/keys`, { mode: 'live' });
    expect(answer(refused)).toEqual(LIVE_ONLY);
    expect(refused.body.error.message).toMatch(/live-mode admin key/);
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM api_keys WHERE partner_id = $1 AND mode = 'live'`, [test.partnerId]);
    expect(n).toBe(1);
    expect((await testAdmin.http.post(`/api/admin/partners/${test.partnerId}/keys`, { mode: 'test' })).status).toBe(201);
  });

  it('cannot revoke a live key (404); the key keeps working', async () => {
    const other = await createKey(t, test.partnerId, 'live');
    expect(answer(await testAdmin.http.post(`/api/admin/keys/${other.keyId}/revoke`))).toEqual({ status: 404, code: 'api_key_not_found' });
    expect((await other.http.get('/api/partners/me')).status).toBe(200);
    const testKey = await createKey(t, test.partnerId, 'test');
    expect((await testAdmin.http.post(`/api/admin/keys/${testKey.keyId}/revoke`)).status).toBe(200);
  });

  it('cannot read or write live learners through X-Partner-Mode: live (403), and acts in test mode by default', async () => {
    const learner = (await live.http.post('/api/users', { external_user_id: unique('ext'), name: 'Live Learner', email: `${unique('l')}@example.com` })).body
      .data;
    expect(answer(await testAdmin.http.get(`/api/users/${learner.id}`, asPartner('live')))).toEqual(LIVE_ONLY);
    expect(
      answer(
        await testAdmin.http.post('/api/users', { external_user_id: unique('ext'), name: 'Planted', email: `${unique('p')}@example.com` }, asPartner('live')),
      ),
    ).toEqual(LIVE_ONLY);
    expect(answer(await testAdmin.http.get(`/api/users/${learner.id}`, asPartner()))).toEqual({ status: 404, code: 'user_not_found' });
    const testLearner = (await test.http.post('/api/users', { external_user_id: unique('ext'), name: 'Test Learner', email: `${unique('t')}@example.com` }))
      .body.data;
    expect((await testAdmin.http.get(`/api/users/${testLearner.id}`, asPartner('test'))).status).toBe(200);
  });

  it('cannot issue a certificate for a live learner found by global id', async () => {
    const { course, topics } = await createCourse(t.db, { topics: [true] });
    const learner = (await live.http.post('/api/users', { external_user_id: unique('ext'), name: 'Live Quiz Taker', email: `${unique('q')}@example.com` })).body
      .data;
    const enrolled = (await live.http.post('/api/enroll', { user_id: learner.id, course_id: course.id, deduct_credits: false })).body.data;
    await live.http.post(`/api/enrollments/${enrolled.enrollment_id}/progress`, { topic_id: topics[0].id });
    const res = await testAdmin.http.post('/api/certificates/issue', { user_id: learner.id, course_id: course.id, override_quiz: true });
    expect(answer(res)).toEqual({ status: 404, code: 'user_not_found' });
  });

  it('cannot approve production access, change a partner or change the shared catalogue (403)', async () => {
    const p = await createPartner(t, { plan: 'growth' });
    const requested = await p.http.post('/api/partners/me/production-access', { use_case: 'We embed courses in our HR onboarding product.' });
    expect(requested.status).toBe(202);
    const id = requested.body.data.request.id as string;
    expect(answer(await testAdmin.http.post(`/api/admin/production-access/${id}/approve`))).toEqual(LIVE_ONLY);
    expect(answer(await testAdmin.http.post(`/api/admin/production-access/${id}/reject`, { reason: 'no' }))).toEqual(LIVE_ONLY);
    expect(answer(await testAdmin.http.patch(`/api/admin/partners/${p.partnerId}`, { plan: 'enterprise' }))).toEqual(LIVE_ONLY);
    expect(answer(await testAdmin.http.patch(`/api/admin/partners/${p.partnerId}`, { status: 'suspended' }))).toEqual(LIVE_ONLY);
    const { course } = await createCourse(t.db, {});
    expect(answer(await testAdmin.http.post(`/api/admin/courses/${course.id}/unpublish`))).toEqual(LIVE_ONLY);
    const [row] = await t.db.query(`SELECT plan_code, status FROM partners WHERE id = $1`, [p.partnerId]);
    expect(row).toEqual({ plan_code: 'growth', status: 'active' });
  });

  it('cannot open the queue dashboard, whose jobs hold live data', async () => {
    const res = await fetch(`${t.baseUrl}/admin/queues/api/queues`, {
      headers: { Authorization: `Basic ${Buffer.from(`op:${testAdmin.key}`).toString('base64')}` },
    });
    const body = (await res.json()) as { error?: { code: string } };
    expect({ status: res.status, code: body.error?.code }).toEqual(LIVE_ONLY);
  });
});
