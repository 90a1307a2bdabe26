import { startApp, TestApp } from '../support/app';
import { createCourse, createKey, createPartner, CreatedPartner } from '../support/factories';
import { createLearner, ledgerOf, topUp } from './enrollment.helpers';

let t: TestApp;
let owner: CreatedPartner;
let strangers: Array<{ name: string; partner: CreatedPartner }>;
beforeAll(async () => {
  t = await startApp();
  owner = await createPartner(t, { plan: 'growth' });
  strangers = [
    { name: 'another partner', partner: await createPartner(t, { plan: 'enterprise' }) },
    { name: 'the same partner in live mode', partner: await createKey(t, owner.partnerId, 'live') },
  ];
});
afterAll(() => t.close());

describe('tenant isolation of users, enrolments and credits', () => {
  it('answers 404 to every read and write of another tenant, and changes nothing', async () => {
    const user = await createLearner(owner.http);
    await topUp(owner.http, user.id, 30);
    const { course, topics } = await createCourse(t.db, { creditCost: 10, topics: [false] });
    const enrollment = (await owner.http.post('/api/enroll', { user_id: user.id, course_id: course.id })).body.data;

    for (const { name, partner } of strangers) {
      const api = partner.http;
      const calls: Array<[string, Promise<{ status: number; body: any }>, string]> = [
        ['GET user', api.get(`/api/users/${user.id}`), 'user_not_found'],
        ['GET balance', api.get(`/api/credits/balance/${user.id}`), 'user_not_found'],
        ['GET ledger', api.get(`/api/credits/transactions/${user.id}`), 'user_not_found'],
        ['GET enrolment', api.get(`/api/enrollments/${enrollment.enrollment_id}`), 'enrollment_not_found'],
        ['GET user enrolments', api.get(`/api/users/${user.id}/enrollments`), 'user_not_found'],
        ['POST topup', api.post('/api/credits/topup', { user_id: user.id, amount: 5 }), 'user_not_found'],
        ['POST enroll by id', api.post('/api/enroll', { user_id: user.id, course_id: course.id, deduct_credits: false }), 'user_not_found'],
        ['POST enroll by external id', api.post('/api/enroll', { external_user_id: user.external_user_id, course_id: course.id }), 'user_not_found'],
        ['POST progress', api.post(`/api/enrollments/${enrollment.enrollment_id}/progress`, { topic_id: topics[0].id }), 'enrollment_not_found'],
      ];
      for (const [label, call, code] of calls) {
        const res = await call;
        expect({ who: name, label, status: res.status, code: res.body.error?.code }).toEqual({ who: name, label, status: 404, code });
      }
    }
    expect(await ledgerOf(t.db, user.id)).toEqual({ balance: 20, sum: 20, rows: 2 });
    expect((await owner.http.get(`/api/enrollments/${enrollment.enrollment_id}`)).body.data.completed_topics).toBe(0);
    expect((await t.db.query(`SELECT course_enrolled($1) AS enrolled`, [course.id]))[0].enrolled).toBe(1);
  });
});
