/**
 * The one way a feature sends hand-written SQL: typed rows instead of TypeORM's `any`, one reading of
 * UPDATE … RETURNING, one test for a unique violation. Column names and types are stated by the caller, next to
 * the SQL that produces them.
 */

import { Limiter } from './limiter';

/** Anything that runs SQL: a DataSource, an EntityManager (also a transaction's), a QueryRunner. */
export interface Queryable {
  query(query: string, parameters?: unknown[]): Promise<unknown>;
}

/**
 * A statement PostgreSQL parses and plans once per connection instead of on every call (a named prepared statement),
 * for the few that every request of a hot path sends: on an enrolment, parsing and planning its statements anew was a
 * good part of PostgreSQL's CPU. Only for constant text: each distinct statement stays prepared on every pooled
 * connection for the connection's life. It needs each connection to be one PostgreSQL session, as it is with the
 * service's own pool; a pooler in transaction mode between them would lose the statements.
 */
export interface PreparedStatement {
  readonly name: string;
  readonly text: string;
}

const preparedNames = new Map<string, string>();

/** The prepared form of a constant statement; one name per text, whichever module declares it. */
export function prepared(text: string): PreparedStatement {
  let name = preparedNames.get(text);
  if (!name) preparedNames.set(text, (name = `pa_${preparedNames.size + 1}`));
  return Object.freeze({ name, text });
}

/** A statement's text, or its prepared form. */
export type Statement = string | PreparedStatement;

/**
 * TypeORM hands the query to pg's `client.query` unchanged (its query logging is off), and pg takes a query config
 * object (`{ name, text }`) there as well as a string: a prepared statement goes through the same manager, and so the
 * same transaction, as any other.
 */
function run(db: Queryable, statement: Statement, params: unknown[]): Promise<unknown> {
  return db.query(statement as string, params);
}

/**
 * A write of an open transaction whose answer the caller does not need (no rows, nothing to decide on). The app's
 * query runners send it with the transaction's next statement or its COMMIT, a round trip fewer; its failure then
 * fails that statement and so the transaction, which rolls back as it would have. Outside a transaction, or on any
 * other Queryable, it runs at once.
 */
export async function sqlWithNext(db: Queryable, statement: Statement, params: unknown[] = []): Promise<void> {
  const runner = (db as { queryRunner?: { sendWithNext?(statement: Statement, params: unknown[]): boolean } }).queryRunner;
  if (runner?.sendWithNext?.(statement, params)) return;
  await run(db, statement, params);
}

/** Rows of a SELECT, or of INSERT … RETURNING. */
export async function sql<T>(db: Queryable, text: Statement, params: unknown[] = []): Promise<T[]> {
  return (await run(db, text, params)) as T[];
}

/** The first row of a query, or null when there is none. */
export async function sqlOne<T>(db: Queryable, text: Statement, params: unknown[] = []): Promise<T | null> {
  const [row] = await sql<T>(db, text, params);
  return row ?? null;
}

/**
 * Rows of UPDATE … RETURNING or DELETE … RETURNING. TypeORM's postgres driver answers `[rows, affected]` for
 * those two commands (and plain rows for the others), so this is the one place that unwraps it.
 */
export async function returning<T>(db: Queryable, text: Statement, params: unknown[] = []): Promise<T[]> {
  const result = await run(db, text, params);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}

/** How many rows an UPDATE or DELETE without RETURNING changed (the `affected` half of TypeORM's `[rows, affected]`). */
export async function affected(db: Queryable, text: Statement, params: unknown[] = []): Promise<number> {
  const result = await run(db, text, params);
  if (Array.isArray(result) && result.length === 2 && typeof result[1] === 'number') return result[1];
  throw new Error('affected() expects an UPDATE or DELETE statement');
}

/** True for PostgreSQL's unique violation (23505), optionally of one named constraint or index. */
export function isUniqueViolation(e: unknown, constraint?: string): boolean {
  const err = e as { code?: unknown; constraint?: unknown; driverError?: { code?: unknown; constraint?: unknown } } | null;
  const code = err?.code ?? err?.driverError?.code;
  const name = err?.constraint ?? err?.driverError?.constraint;
  return code === '23505' && (constraint === undefined || name === constraint);
}

/** A statement that ran past its time bound (PostgreSQL's statement_timeout, 57014). */
export function isStatementTimeout(e: unknown): boolean {
  const err = e as { code?: unknown; driverError?: { code?: unknown } } | null;
  return (err?.code ?? err?.driverError?.code) === '57014';
}

/** What a bounded Queryable runs on: the app's DataSource (its one pool). */
export interface QueryRunnerSource {
  createQueryRunner(): {
    connect(): Promise<unknown>;
    query(query: string, parameters?: unknown[]): Promise<unknown>;
    release(): Promise<void>;
  };
}

type BoundedRunner = ReturnType<QueryRunnerSource['createQueryRunner']>;

/**
 * Statements bounded in time and in number, on the app's pool: they run on connections checked out of it with
 * `statement_timeout` set for the session, so one that cannot finish in time is cancelled by PostgreSQL (and
 * `onTimeout` says what the caller gets instead); at most `concurrency` run at once, the others wait their turn here
 * rather than take more of the pool. A connection is kept for the next statement while statements keep coming (the
 * time bound then costs nothing per statement) and goes back to the pool, its setting reset, after `idleMs` unused.
 * Search uses it to keep its cost and its share of PostgreSQL bounded whatever a query says.
 */
export class BoundedQueryable implements Queryable {
  private readonly slots: Limiter;
  private readonly idle: Array<{ runner: BoundedRunner; timer: NodeJS.Timeout }> = [];

  constructor(
    private readonly source: QueryRunnerSource,
    private readonly timeoutMs: number,
    concurrency: number,
    private readonly onTimeout: (e: unknown) => unknown,
    private readonly idleMs = 1000,
  ) {
    this.slots = new Limiter(concurrency);
  }

  query(query: string, parameters?: unknown[]): Promise<unknown> {
    return this.slots.run(() => this.run(query, parameters));
  }

  /** Gives the kept connections back to the pool (before the pool closes). */
  async close(): Promise<void> {
    const kept = this.idle.splice(0);
    for (const { timer } of kept) clearTimeout(timer);
    await Promise.all(kept.map(({ runner }) => this.giveBack(runner)));
  }

  private async run(query: string, parameters?: unknown[]): Promise<unknown> {
    const runner = await this.checkOut();
    try {
      const result = await runner.query(query, parameters);
      this.keep(runner);
      return result;
    } catch (e) {
      // A cancelled statement leaves its session as it was; any other failure may have broken it.
      if (isStatementTimeout(e)) {
        this.keep(runner);
        throw this.onTimeout(e);
      }
      await this.giveBack(runner);
      throw e;
    }
  }

  private async checkOut(): Promise<BoundedRunner> {
    const kept = this.idle.pop();
    if (kept) {
      clearTimeout(kept.timer);
      return kept.runner;
    }
    const runner = this.source.createQueryRunner();
    await runner.connect();
    try {
      await runner.query(`SET statement_timeout = ${Math.floor(this.timeoutMs)}`);
    } catch (e) {
      await runner.release();
      throw e;
    }
    return runner;
  }

  private keep(runner: BoundedRunner): void {
    const timer = setTimeout(() => {
      const at = this.idle.findIndex((k) => k.runner === runner);
      if (at !== -1) void this.giveBack(this.idle.splice(at, 1)[0].runner);
    }, this.idleMs);
    timer.unref();
    this.idle.push({ runner, timer });
  }

  /** Back to the pool with the pool's own statement timeout. */
  private async giveBack(runner: BoundedRunner): Promise<void> {
    await runner.query('RESET statement_timeout').catch(() => undefined);
    await runner.release();
  }
}

/** A bare pg client's statement (before the app's pool exists: creating its database, waiting for PostgreSQL). */
export async function clientSql<T>(
  client: { query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }> },
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  return (await client.query(text, params)).rows as T[];
}
