import { prepared, sql, sqlOne, sqlWithNext } from '../../src/common/database';
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

describe("a transaction's START TRANSACTION sent with its first statement", () => {
  const xid = prepared('SELECT pg_current_xact_id()::text AS xid');

  it('opens the transaction before that statement: one transaction id throughout', async () => {
    const [first, second] = await t.db.transaction(async (em) => [await sqlOne<{ xid: string }>(em, xid), await sqlOne<{ xid: string }>(em, xid)]);
    expect(first?.xid).toMatch(/^\d+$/);
    expect(second).toEqual(first);
    // A parameterised statement that is not prepared goes with it the same way.
    const [a, b] = await t.db.transaction(async (em) => [
      await sqlOne<{ xid: string }>(em, 'SELECT pg_current_xact_id()::text AS xid, $1::int AS n', [1]),
      await sqlOne<{ xid: string }>(em, xid),
    ]);
    expect(b?.xid).toBe(a?.xid);
  });

  it('keeps statements issued together at the start of a transaction inside it', async () => {
    const ids = await t.db.transaction((em) => Promise.all([0, 1, 2].map(() => sqlOne<{ xid: string }>(em, xid))));
    expect(new Set(ids.map((r) => r?.xid)).size).toBe(1);
  });

  it('rolls the first statement back with the transaction, and commits it with it', async () => {
    const insert = prepared('INSERT INTO tutors (name, bio) VALUES ($1, $2) RETURNING id');
    const rolledBack = `First rolled back ${Date.now()}`;
    await expect(
      t.db.transaction(async (em) => {
        await sql(em, insert, [rolledBack, 'The first statement of its transaction.']);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await sql(t.db, 'SELECT id FROM tutors WHERE name = $1', [rolledBack])).toEqual([]);
    const committed = `First committed ${Date.now()}`;
    await t.db.transaction((em) => sql(em, insert, [committed, 'The first statement of its transaction.']));
    expect(await sql(t.db, 'SELECT name FROM tutors WHERE name = $1', [committed])).toEqual([{ name: committed }]);
  });

  it('answers a failing first statement with its own error, the connection usable after the rollback', async () => {
    const broken = prepared('SELECT no_such_column FROM tutors WHERE id = $1');
    for (let i = 0; i < 2; i++) {
      // The same error each time: the failed Parse is not remembered as a prepared statement.
      await expect(t.db.transaction((em) => sql(em, broken, [1]))).rejects.toThrow('column "no_such_column" does not exist');
    }
    const failsLater = prepared('SELECT 1 / ($1::int - 1) AS n');
    await expect(t.db.transaction((em) => sql(em, failsLater, [1]))).rejects.toThrow('division by zero');
    expect(await t.db.transaction((em) => sqlOne<{ n: number }>(em, failsLater, [2]))).toEqual({ n: 1 });
  });

  it('still works for a transaction whose first statement is a simple query, or that sends none', async () => {
    const [first, second] = await t.db.transaction(async (em) => [
      await sqlOne<{ xid: string }>(em, 'SELECT pg_current_xact_id()::text AS xid'),
      await sqlOne<{ xid: string }>(em, xid),
    ]);
    expect(second).toEqual(first);
    await expect(t.db.transaction(() => Promise.resolve('nothing sent'))).resolves.toBe('nothing sent');
  });
});

describe('a statement sent with the next one (sqlWithNext)', () => {
  const insert = prepared('INSERT INTO tutors (name, bio) VALUES ($1, $2)');
  const count = prepared("SELECT count(*)::int AS n FROM tutors WHERE name LIKE $1 || '%'");
  let n = 0;
  const unique = (prefix: string) => `${prefix} ${++n}`;

  it('runs before the next statement, in the same transaction, or with the COMMIT', async () => {
    const name = `With next ${Date.now()}`;
    // The first use on a connection prepares it on a round trip of its own; later ones go with what follows.
    for (let i = 0; i < 3; i++) {
      const seen = await t.db.transaction(async (em) => {
        await sqlWithNext(em, insert, [unique(name), `Round ${i}`]);
        return sqlOne<{ n: number }>(em, count, [name]);
      });
      expect(seen).toEqual({ n: 2 * i + 1 });
      await t.db.transaction((em) => sqlWithNext(em, insert, [unique(name), `Round ${i}, with the COMMIT`]));
    }
    expect(await sqlOne(t.db, count, [name])).toEqual({ n: 6 });
  });

  it('is never sent when the transaction rolls back first', async () => {
    const name = `Never sent ${Date.now()}`;
    await expect(
      t.db.transaction(async (em) => {
        await sqlOne(em, count, [name]);
        await sqlWithNext(em, insert, [unique(name), 'Rolled back before it went.']);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await sqlOne(t.db, count, [name])).toEqual({ n: 0 });
  });

  it('fails the statement it went with, and the COMMIT, so the transaction rolls back', async () => {
    const name = `Failing ${Date.now()}`;
    const failing = prepared('INSERT INTO tutors (name, bio) VALUES ($1, (1 / $2::int)::text)');
    for (let i = 0; i < 3; i++) {
      await expect(
        t.db.transaction(async (em) => {
          await sql(em, insert, [unique(name), 'Written first.']);
          await sqlWithNext(em, failing, [unique(name), 0]);
        }),
      ).rejects.toThrow('division by zero');
      await expect(
        t.db.transaction(async (em) => {
          await sqlWithNext(em, failing, [unique(name), 0]);
          await sqlOne(em, count, [name]);
        }),
      ).rejects.toThrow('division by zero');
    }
    expect(await sqlOne(t.db, count, [name])).toEqual({ n: 0 });
    // Every connection is usable after it.
    await Promise.all(Array.from({ length: 25 }, () => t.db.transaction((em) => sqlOne(em, count, [name]))));
  });

  it('runs at once outside a transaction', async () => {
    const name = `At once ${Date.now()}`;
    await sqlWithNext(t.db, insert, [unique(name), 'No transaction.']);
    expect(await sqlOne(t.db, count, [name])).toEqual({ n: 1 });
  });
});
