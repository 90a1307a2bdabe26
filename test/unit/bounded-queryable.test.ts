import { BoundedQueryable, QueryRunnerSource } from '../../src/common/database';

/** A stand-in pool: records what each connection is sent, and holds every statement until `releaseAll`. */
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
          if (/statement_timeout/.test(text)) return [];
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
  it('runs at most `concurrency` statements at once, on connections with the time bound, kept for the next ones', async () => {
    const pool = fakePool();
    const db = new BoundedQueryable(pool.source, 1000, 3, (e) => e);
    const results = Promise.all(Array.from({ length: 10 }, (_, i) => db.query(`SELECT ${i}`)));
    await pool.releaseAll();
    expect((await results).map((r) => (r as Array<{ text: string }>)[0].text)).toEqual(Array.from({ length: 10 }, (_, i) => `SELECT ${i}`));
    expect(pool.mostBusy()).toBe(3);
    expect(pool.sent).toHaveLength(3);
    expect(pool.sent.every((log) => log[0] === 'SET statement_timeout = 1000')).toBe(true);
    expect(pool.released()).toBe(0);
    await db.close();
    expect(pool.released()).toBe(3);
    expect(pool.sent.every((log) => log[log.length - 1] === 'RESET statement_timeout')).toBe(true);
  });

  it("answers the caller's error for a statement cancelled by the timeout and keeps the connection; another failure gives it back", async () => {
    const timeout = Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
    const broken = new Error('Connection terminated unexpectedly');
    const pool = fakePool((text) => (text === 'SELECT slow' ? timeout : text === 'SELECT broken' ? broken : undefined));
    const db = new BoundedQueryable(pool.source, 1000, 8, () => new Error('503'));
    const slow = db.query('SELECT slow').catch((e: Error) => e);
    await pool.releaseAll();
    expect(await slow).toMatchObject({ message: '503' });
    expect(pool.released()).toBe(0);
    const failed = db.query('SELECT broken').catch((e: Error) => e);
    await pool.releaseAll();
    expect(await failed).toBe(broken);
    expect(pool.sent).toHaveLength(1);
    expect(pool.released()).toBe(1);
  });

  it('gives a connection back to the pool once it has been unused for `idleMs`', async () => {
    const pool = fakePool();
    const db = new BoundedQueryable(pool.source, 1000, 8, (e) => e, 20);
    const done = db.query('SELECT 1');
    await pool.releaseAll();
    await done;
    expect(pool.released()).toBe(0);
    await new Promise((r) => setTimeout(r, 60));
    expect(pool.released()).toBe(1);
  });
});
