import { Pool } from 'pg';
import { DomainError } from '../common/errors';

/** What search needs of a database: a statement and its rows. A TypeORM DataSource is one too (eval, benchmark). */
export interface SearchSql {
  query(sql: string, params?: unknown[]): Promise<unknown[]>;
}

/** Longest a search statement may run: the cost bound of one search, whatever its text. */
export const SEARCH_STATEMENT_TIMEOUT_MS = 1000;
// Connections searches may hold at once per process: a burst of searches waits here instead of crowding PostgreSQL.
const SEARCH_POOL_SIZE = 8;

/**
 * The searches' own small pool, with a statement timeout of a second: a statement that cannot finish (a lock, a
 * pathological query) answers 503 instead of holding a connection for the app's 15 s, and searches cannot take more
 * than their share of PostgreSQL from the other routes.
 */
export class SearchDatabase implements SearchSql {
  private readonly pool: Pool;

  constructor(databaseUrl: string) {
    this.pool = new Pool({
      connectionString: databaseUrl,
      max: SEARCH_POOL_SIZE,
      connectionTimeoutMillis: 1500,
      idleTimeoutMillis: 30_000,
      statement_timeout: SEARCH_STATEMENT_TIMEOUT_MS,
      query_timeout: SEARCH_STATEMENT_TIMEOUT_MS + 500,
      application_name: 'partner-api-search',
    });
    // An idle client's error (PostgreSQL restarted) must not crash the process; the next query reconnects.
    this.pool.on('error', () => undefined);
  }

  async query(sql: string, params?: unknown[]): Promise<unknown[]> {
    try {
      return (await this.pool.query<Record<string, unknown>>(sql, params)).rows;
    } catch (e) {
      // 57014: cancelled by the statement timeout; the client-side query timeout says "Query read timeout".
      if ((e as { code?: string }).code === '57014' || /Query read timeout/.test((e as Error).message)) {
        throw new DomainError('service_unavailable', undefined, 'The search took too long. Retry shortly.', { 'Retry-After': '1' });
      }
      throw e;
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
