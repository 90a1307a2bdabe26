/**
 * The one way a feature sends hand-written SQL: typed rows instead of TypeORM's `any`, one reading of
 * UPDATE … RETURNING, one test for a unique violation. Column names and types are stated by the caller, next to
 * the SQL that produces them.
 */

/** Anything that runs SQL: a DataSource, an EntityManager (also a transaction's), a QueryRunner. */
export interface Queryable {
  query(query: string, parameters?: unknown[]): Promise<unknown>;
}

/** Rows of a SELECT, or of INSERT … RETURNING. */
export async function sql<T>(db: Queryable, text: string, params: unknown[] = []): Promise<T[]> {
  return (await db.query(text, params)) as T[];
}

/** The first row of a query, or null when there is none. */
export async function sqlOne<T>(db: Queryable, text: string, params: unknown[] = []): Promise<T | null> {
  const [row] = await sql<T>(db, text, params);
  return row ?? null;
}

/**
 * Rows of UPDATE … RETURNING or DELETE … RETURNING. TypeORM's postgres driver answers `[rows, affected]` for
 * those two commands (and plain rows for the others), so this is the one place that unwraps it.
 */
export async function returning<T>(db: Queryable, text: string, params: unknown[] = []): Promise<T[]> {
  const result = await db.query(text, params);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}

/** How many rows an UPDATE or DELETE without RETURNING changed (the `affected` half of TypeORM's `[rows, affected]`). */
export async function affected(db: Queryable, text: string, params: unknown[] = []): Promise<number> {
  const result = await db.query(text, params);
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

/**
 * Statements bounded in time and in number, on the app's pool: each runs in a short transaction of its own with
 * `SET LOCAL statement_timeout`, so one that cannot finish in time is cancelled by PostgreSQL (and `onTimeout` says
 * what the caller gets instead); at most `concurrency` run at once, the others wait their turn here rather than take
 * more of the pool. Search uses it to keep its cost and its share of PostgreSQL bounded whatever a query says.
 */
export class BoundedQueryable implements Queryable {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly begin: string;

  constructor(
    private readonly source: QueryRunnerSource,
    timeoutMs: number,
    private readonly concurrency: number,
    private readonly onTimeout: (e: unknown) => unknown,
  ) {
    // No parameters: the simple protocol sends both statements in one round trip.
    this.begin = `BEGIN; SET LOCAL statement_timeout = ${Math.floor(timeoutMs)}`;
  }

  async query(query: string, parameters?: unknown[]): Promise<unknown> {
    // A finishing statement hands its slot straight to the next in line, so none can slip in between.
    if (this.running < this.concurrency) this.running++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await this.run(query, parameters);
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  private async run(query: string, parameters?: unknown[]): Promise<unknown> {
    const runner = this.source.createQueryRunner();
    await runner.connect();
    let open = false;
    try {
      await runner.query(this.begin);
      open = true;
      const result = await runner.query(query, parameters);
      await runner.query('COMMIT');
      open = false;
      return result;
    } catch (e) {
      if (open) await runner.query('ROLLBACK').catch(() => undefined);
      throw isStatementTimeout(e) ? this.onTimeout(e) : e;
    } finally {
      await runner.release();
    }
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
