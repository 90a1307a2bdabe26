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
