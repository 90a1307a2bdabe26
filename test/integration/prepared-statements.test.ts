import { prepared, sql, sqlOne } from '../../src/common/database';
import { startApp, TestApp } from '../support/app';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(() => t.close());

describe('prepared statements', () => {
  it('run through the TypeORM manager in its transaction, prepared once on the connection', async () => {
    const next = prepared('SELECT $1::int + 1 AS n');
    const insert = prepared('INSERT INTO tutors (name, bio) VALUES ($1, $2) RETURNING id');
    const name = `Prepared ${Date.now()}`;
    await expect(
      t.db.transaction(async (em) => {
        expect(await sqlOne<{ n: number }>(em, next, [1])).toEqual({ n: 2 });
        expect(await sqlOne<{ n: number }>(em, next, [41])).toEqual({ n: 42 });
        await sql(em, insert, [name, 'Rolled back with its transaction.']);
        // Parsed once on this connection, then only bound and executed.
        const [statement] = await sql<{ statement: string }>(em, 'SELECT statement FROM pg_prepared_statements WHERE name = $1', [next.name]);
        expect(statement).toEqual({ statement: next.text });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await sql(t.db, 'SELECT id FROM tutors WHERE name = $1', [name])).toEqual([]);
  });
});
