import { BoundedQueryable, QueryRunnerSource } from '../../src/common/database';

/** A stand-in pool: records what each connection is sent, and holds every statement until `release` is called. */
function fakePool(fail?: (text: string) => Error | undefined) {
  const sent: string[][] = [];
  const held: Array<() => void> = [];
  let busy = 0;
  let mostBusy = 0;
  let released = 0;
  const source: QueryRunnerSource = {
    createQueryRunner() {
      const log: string[] = [];
      sent.push(log);
      return {
        connect: () => Promise.resolve(),
        async query(text: string) {
          log.push(text);
          if (text.startsWith('BEGIN') || text === 'COMMIT' || text === 'ROLLBACK') return [];
          busy++;
          mostBusy = Math.max(mostBusy, busy);
          await new Promise<void>((r) => held.push(r));
          busy--;
          const error = fail?.(text);
          if (error) throw error;
          return [{ text }];
        },
        release: () => {
          released++;
          return Promise.resolve();
        },
      };
    },
  };
  const releaseAll = async () => {
    await new Promise((r) => setImmediate(r));
    while (held.length || busy) {
      held.splice(0).forEach((r) => r());
      await new Promise((r) => setImmediate(r));
    }
  };
  return { source, sent, releaseAll, mostBusy: () => mostBusy, released: () => released };
}

describe('BoundedQueryable', () => {
  it('runs each statement in its own transaction with the time bound, at most `concurrency` at once', async () => {
    const pool = fakePool();
    const db = new BoundedQueryable(pool.source, 1000, 3, (e) => e);
    const results = Promise.all(Array.from({ length: 10 }, (_, i) => db.query(`SELECT ${i}`)));
    await new Promise((r) => setImmediate(r));
    expect(pool.sent).toHaveLength(3);
    await pool.releaseAll();
    expect((await results).map((r) => (r as Array<{ text: string }>)[0].text)).toEqual(Array.from({ length: 10 }, (_, i) => `SELECT ${i}`));
    expect(pool.mostBusy()).toBe(3);
    expect(pool.released()).toBe(10);
    expect(pool.sent[0]).toEqual(['BEGIN; SET LOCAL statement_timeout = 1000', 'SELECT 0', 'COMMIT']);
  });

  it("answers the caller's error for a statement cancelled by the timeout, and rolls back", async () => {
    const timeout = Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
    const pool = fakePool((text) => (text === 'SELECT slow' ? timeout : undefined));
    const db = new BoundedQueryable(pool.source, 1000, 8, () => new Error('503'));
    const slow = db.query('SELECT slow').catch((e: Error) => e);
    const other = db.query('SELECT fine');
    await pool.releaseAll();
    expect(await slow).toMatchObject({ message: '503' });
    await expect(other).resolves.toEqual([{ text: 'SELECT fine' }]);
    expect(pool.sent[0]).toEqual(['BEGIN; SET LOCAL statement_timeout = 1000', 'SELECT slow', 'ROLLBACK']);
    expect(pool.released()).toBe(2);
  });
});
