import { In } from 'typeorm';
import { scoped } from '../../src/common/scope';
import { User } from '../../src/users/user.entity';
import { createPartner, unique } from '../support/factories';
import { startApp, TestApp } from '../support/app';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(() => t.close());

describe('Scoped.findOne', () => {
  it('hydrates the entity as TypeORM does, and finds nothing in another partner or mode', async () => {
    const a = await createPartner(t);
    const b = await createPartner(t);
    const external = unique('learner');
    const created = await a.http.post('/api/users', { external_user_id: external, name: 'Ada', email: 'ada@example.com' });
    expect(created.status).toBe(201);
    const id = created.body.data.id;

    const mine = { partnerId: a.partnerId, mode: 'test' as const };
    const fast = await scoped(t.db.manager, mine).findOne(User, { id });
    const viaTypeorm = await t.db.manager.findOne(User, { where: { id } });
    expect(fast).toBeInstanceOf(User);
    expect(fast).toEqual(viaTypeorm);
    expect(fast!.createdAt).toBeInstanceOf(Date);
    expect(await scoped(t.db.manager, mine).findOne(User, { externalUserId: external })).toEqual(viaTypeorm);

    expect(await scoped(t.db.manager, { partnerId: b.partnerId, mode: 'test' }).findOne(User, { id })).toBeNull();
    expect(await scoped(t.db.manager, { partnerId: a.partnerId, mode: 'live' }).findOne(User, { id })).toBeNull();
    // Operators go through TypeORM, scoped all the same.
    expect(await scoped(t.db.manager, mine).findOne(User, { id: In([id]) })).toEqual(viaTypeorm);
    expect(await scoped(t.db.manager, { partnerId: b.partnerId, mode: 'test' }).findOne(User, { id: In([id]) })).toBeNull();
  });

  it('locks the row FOR UPDATE inside a transaction', async () => {
    const a = await createPartner(t);
    const created = await a.http.post('/api/users', { external_user_id: unique('learner'), name: 'Bo', email: 'bo@example.com' });
    const id = created.body.data.id;
    const scope = { partnerId: a.partnerId, mode: 'test' as const };
    await t.db.transaction(async (em) => {
      expect((await scoped(em, scope).findOne(User, { id }, 'pessimistic_write'))?.id).toBe(id);
      // Another connection cannot take the row while this transaction holds it.
      await expect(t.db.query('SELECT id FROM users WHERE id = $1 FOR UPDATE NOWAIT', [id])).rejects.toMatchObject({ driverError: { code: '55P03' } });
    });
    await expect(t.db.query('SELECT id FROM users WHERE id = $1 FOR UPDATE NOWAIT', [id])).resolves.toEqual([{ id }]);
  });
});
