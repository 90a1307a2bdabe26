import { sql } from '../../src/common/database';
import { inPartner, inScope, scopeParams } from '../../src/common/scope';
import { createPartner, unique } from '../support/factories';
import { startApp, TestApp } from '../support/app';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(() => t.close());

describe('inScope and scopeParams', () => {
  it('find a row in its own partner and mode only', async () => {
    const a = await createPartner(t);
    const b = await createPartner(t);
    const created = await a.http.post('/api/users', { external_user_id: unique('learner'), name: 'Ada', email: 'ada@example.com' });
    expect(created.status).toBe(201);
    const id = (created.body as { data: { id: number } }).data.id;
    const find = (partnerId: number, mode: 'test' | 'live') =>
      sql<{ id: number }>(t.db, `SELECT u.id FROM users u WHERE ${inScope('u')} AND u.id = $3`, scopeParams({ partnerId, mode }, id));

    expect(await find(a.partnerId, 'test')).toEqual([{ id }]);
    expect(await find(b.partnerId, 'test')).toEqual([]);
    expect(await find(a.partnerId, 'live')).toEqual([]);
    expect(await sql(t.db, `SELECT id FROM users WHERE ${inPartner()} AND id = $2`, [a.partnerId, id])).toEqual([{ id }]);
    expect(await sql(t.db, `SELECT id FROM users WHERE ${inPartner()} AND id = $2`, [b.partnerId, id])).toEqual([]);
  });
});
