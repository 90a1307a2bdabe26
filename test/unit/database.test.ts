import { affected, isUniqueViolation, prepared, returning, sql, sqlOne, type Queryable } from '../../src/common/database';

/** Answers every query with a fixed result, the way TypeORM's postgres driver shapes it. */
const answering = (result: unknown): Queryable => ({ query: () => Promise.resolve(result) });

describe('common/database', () => {
  it('returning() unwraps the [rows, affected] TypeORM gives for UPDATE/DELETE … RETURNING, and passes plain rows through', async () => {
    expect(await returning<{ id: string }>(answering([[{ id: 'a' }], 1]), 'UPDATE …')).toEqual([{ id: 'a' }]);
    expect(await returning<{ id: string }>(answering([[], 0]), 'UPDATE …')).toEqual([]);
    expect(await returning<{ id: string }>(answering([{ id: 'b' }]), 'INSERT …')).toEqual([{ id: 'b' }]);
  });

  it('affected() reads the count of an UPDATE or DELETE, and refuses a result that has none', async () => {
    expect(await affected(answering([[], 3]), 'DELETE …')).toBe(3);
    await expect(affected(answering([{ id: 1 }]), 'SELECT …')).rejects.toThrow('affected() expects an UPDATE or DELETE statement');
  });

  it('sqlOne() answers the first row or null', async () => {
    expect(await sqlOne<{ n: number }>(answering([{ n: 1 }, { n: 2 }]), 'SELECT …')).toEqual({ n: 1 });
    expect(await sqlOne<{ n: number }>(answering([]), 'SELECT …')).toBeNull();
    expect(await sql<{ n: number }>(answering([{ n: 1 }]), 'SELECT …')).toEqual([{ n: 1 }]);
  });

  it('prepared() names each text once, and the helpers pass the named statement to the query as pg takes it', async () => {
    const a = prepared('SELECT 1 AS prepared_a');
    expect(prepared('SELECT 1 AS prepared_a')).toEqual(a);
    expect(prepared('SELECT 2 AS prepared_b').name).not.toBe(a.name);
    const seen: unknown[] = [];
    const recording: Queryable = { query: (query, params) => (seen.push([query, params]), Promise.resolve([{ n: 1 }])) };
    expect(await sqlOne<{ n: number }>(recording, a, [7])).toEqual({ n: 1 });
    expect(seen).toEqual([[{ name: a.name, text: 'SELECT 1 AS prepared_a' }, [7]]]);
  });

  it('isUniqueViolation() matches 23505 on the error or its driverError, optionally of one constraint', () => {
    expect(isUniqueViolation({ code: '23505', constraint: 'users_pkey' })).toBe(true);
    expect(isUniqueViolation({ driverError: { code: '23505', constraint: 'job_results_pkey' } }, 'job_results_pkey')).toBe(true);
    expect(isUniqueViolation({ code: '23505', constraint: 'other' }, 'job_results_pkey')).toBe(false);
    expect(isUniqueViolation({ code: '23503' })).toBe(false);
    expect(isUniqueViolation(null)).toBe(false);
  });
});
