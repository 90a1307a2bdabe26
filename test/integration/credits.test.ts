import { startApp, TestApp } from '../support/app';
import { createKey, createPartner, CreatedPartner, unique } from '../support/factories';
import { countBy, createLearner, eventsOf, ledgerOf } from './enrollment.helpers';

let t: TestApp;
let p: CreatedPartner;
beforeAll(async () => {
  t = await startApp();
  p = await createPartner(t, { plan: 'enterprise' });
});
afterAll(() => t.close());

describe('POST /api/credits/topup', () => {
  it('credits a learner (201) and answers the new balance', async () => {
    const user = await createLearner(p.http);
    const first = await p.http.post('/api/credits/topup', { user_id: user.id, amount: 100, source: 'stripe', reference: unique('pay') });
    expect(first.status).toBe(201);
    expect(first.body.data).toEqual({
      transaction_id: expect.stringMatching(/^txn_[A-Za-z0-9]{22}$/),
      user_id: user.id,
      amount: 100,
      credits: 100,
      source: 'stripe',
      reference: expect.any(String),
      created_at: expect.stringMatching(/Z$/),
    });
    const second = await p.http.post('/api/credits/topup', { user_id: user.id, amount: 40 });
    expect(second.status).toBe(201);
    expect(second.body.data).toMatchObject({ credits: 140, source: null, reference: null });
  });

  it('records credits.purchased with the exact payload', async () => {
    const user = await createLearner(p.http);
    const reference = unique('pay');
    const { data } = (await p.http.post('/api/credits/topup', { user_id: user.id, amount: 25, source: 'paypal', reference })).body;
    const events = (await eventsOf(t.db, p.partnerId, 'credits.purchased')).filter((e) => e.payload.user_id === user.id);
    expect(events.map((e) => e.payload)).toEqual([
      {
        transaction_id: data.transaction_id,
        user_id: user.id,
        external_user_id: user.external_user_id,
        amount: 25,
        payment_reference: reference,
        source: 'paypal',
        credits: 25,
        purchased_at: data.created_at,
      },
    ]);
  });

  it('returns the original transaction (200) for a repeated reference with the same user and amount, crediting once', async () => {
    const user = await createLearner(p.http);
    const reference = unique('pay');
    const first = await p.http.post('/api/credits/topup', { user_id: user.id, amount: 30, reference });
    const again = await p.http.post('/api/credits/topup', { user_id: user.id, amount: 30, reference });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    expect((await p.http.get(`/api/credits/balance/${user.id}`)).body.data.credits).toBe(30);
    expect(await eventsOf(t.db, p.partnerId, 'credits.purchased').then((e) => e.filter((x) => x.payload.user_id === user.id))).toHaveLength(1);
  });

  it('answers 409 reference_conflict for a reused reference with another amount or user', async () => {
    const [a, b] = [await createLearner(p.http), await createLearner(p.http)];
    const reference = unique('pay');
    await p.http.post('/api/credits/topup', { user_id: a.id, amount: 30, reference });
    for (const body of [
      { user_id: a.id, amount: 31, reference },
      { user_id: b.id, amount: 30, reference },
    ]) {
      const res = await p.http.post('/api/credits/topup', body);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('reference_conflict');
    }
    expect((await ledgerOf(t.db, b.id)).balance).toBe(0);
  });

  it('credits once for 20 parallel top-ups with the same reference', async () => {
    const user = await createLearner(p.http);
    const reference = unique('pay');
    const results = await Promise.all(Array.from({ length: 20 }, () => p.http.post('/api/credits/topup', { user_id: user.id, amount: 50, reference })));
    expect(countBy(results, (r) => r.status)).toEqual({ 201: 1, 200: 19 });
    expect(new Set(results.map((r) => r.body.data.transaction_id)).size).toBe(1);
    expect(await ledgerOf(t.db, user.id)).toEqual({ balance: 50, sum: 50, rows: 1 });
  });

  it('keeps balance = ledger sum under 30 parallel top-ups without reference', async () => {
    const user = await createLearner(p.http);
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => p.http.post('/api/credits/topup', { user_id: user.id, amount: i + 1 })));
    expect(results.every((r) => r.status === 201)).toBe(true);
    expect(await ledgerOf(t.db, user.id)).toEqual({ balance: 465, sum: 465, rows: 30 });
    expect(new Set(results.map((r) => r.body.data.credits)).size).toBe(30);
  });

  it.each([
    ['amount 0', { amount: 0 }, 'amount'],
    ['amount over 1,000,000', { amount: 1_000_001 }, 'amount'],
    ['a fractional amount', { amount: 1.5 }, 'amount'],
    ['a source over 100 chars', { amount: 10, source: 'x'.repeat(101) }, 'source'],
    ['a reference over 200 chars', { amount: 10, reference: 'x'.repeat(201) }, 'reference'],
  ])('rejects %s with 400 on the field', async (_label, extra, field) => {
    const user = await createLearner(p.http);
    const res = await p.http.post('/api/credits/topup', { user_id: user.id, ...extra });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('accepts the bounds 1 and 1,000,000', async () => {
    const user = await createLearner(p.http);
    expect((await p.http.post('/api/credits/topup', { user_id: user.id, amount: 1 })).status).toBe(201);
    expect((await p.http.post('/api/credits/topup', { user_id: user.id, amount: 1_000_000 })).body.data.credits).toBe(1_000_001);
  });

  it('answers 404 for an unknown user', async () => {
    const res = await p.http.post('/api/credits/topup', { user_id: 2_000_000_000, amount: 5 });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('user_not_found');
  });
});

describe('GET /api/credits/balance/:user_id and /transactions/:user_id', () => {
  it('answers 0 for a learner who never had credits', async () => {
    const user = await createLearner(p.http);
    const res = await p.http.get(`/api/credits/balance/${user.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'success', data: { user_id: user.id, credits: 0 } });
  });

  it('lists the ledger newest first, paginated', async () => {
    const user = await createLearner(p.http);
    for (const amount of [5, 6, 7]) await p.http.post('/api/credits/topup', { user_id: user.id, amount });
    const page1 = await p.http.get(`/api/credits/transactions/${user.id}?limit=2`);
    expect(page1.status).toBe(200);
    expect(page1.body.data).toMatchObject({ total: 3, page: 1, pages: 2 });
    expect(page1.body.data.transactions.map((x: { amount: number }) => x.amount)).toEqual([7, 6]);
    expect(page1.body.data.transactions[0]).toEqual({
      transaction_id: expect.stringMatching(/^txn_/),
      user_id: user.id,
      amount: 7,
      kind: 'topup',
      source: null,
      reference: null,
      enrollment_id: null,
      balance_after: 18,
      created_at: expect.stringMatching(/Z$/),
    });
    const page3 = await p.http.get(`/api/credits/transactions/${user.id}?page=3&limit=2`);
    expect(page3.body.data).toEqual({ transactions: [], total: 3, page: 3, pages: 2 });
  });

  it('hides balances and ledgers from another partner and the other mode', async () => {
    const user = await createLearner(p.http);
    await p.http.post('/api/credits/topup', { user_id: user.id, amount: 9 });
    const callers = [(await createPartner(t, { plan: 'growth' })).http, (await createKey(t, p.partnerId, 'live')).http];
    for (const api of callers) {
      for (const path of [`/api/credits/balance/${user.id}`, `/api/credits/transactions/${user.id}`]) {
        const res = await api.get(path);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('user_not_found');
      }
      expect((await api.post('/api/credits/topup', { user_id: user.id, amount: 5 })).status).toBe(404);
    }
    expect((await ledgerOf(t.db, user.id)).balance).toBe(9);
  });

  it('refuses a negative balance and ledger edits in the database itself', async () => {
    const user = await createLearner(p.http);
    await p.http.post('/api/credits/topup', { user_id: user.id, amount: 3 });
    await expect(t.db.query(`UPDATE credit_accounts SET balance = -1 WHERE user_id = $1`, [user.id])).rejects.toThrow(/credit_accounts_balance_ck/);
    await expect(t.db.query(`UPDATE credit_transactions SET amount = 1000 WHERE user_id = $1`, [user.id])).rejects.toThrow(/append-only/);
    await expect(t.db.query(`DELETE FROM credit_transactions WHERE user_id = $1`, [user.id])).rejects.toThrow(/append-only/);
  });

  it('is not in the starter plan (401 endpoint_not_in_plan)', async () => {
    const starter = await createPartner(t, { plan: 'starter' });
    const res = await starter.http.get('/api/credits/balance/1');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('endpoint_not_in_plan');
    expect((await starter.http.post('/api/credits/topup', { user_id: 1, amount: 1 })).body.error.code).toBe('endpoint_not_in_plan');
  });
});
