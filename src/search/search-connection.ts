import { DataSource } from 'typeorm';
import { BoundedQueryable } from '../common/database';
import { DomainError } from '../common/errors';

/** Longest a search statement may run: the cost bound of one search, whatever its text. */
export const SEARCH_STATEMENT_TIMEOUT_MS = 1000;
// Search statements running at once per process: a burst of searches waits here instead of crowding PostgreSQL.
const SEARCH_CONCURRENCY = 8;

/**
 * The connection every search statement runs on: the app's pool, each statement bounded to a second (past it, 503
 * and Retry-After instead of a connection held for the request's whole budget), and at most SEARCH_CONCURRENCY at
 * once, so searches cannot take more than their share of PostgreSQL from the other routes.
 */
export function searchConnection(db: DataSource): BoundedQueryable {
  return new BoundedQueryable(
    db,
    SEARCH_STATEMENT_TIMEOUT_MS,
    SEARCH_CONCURRENCY,
    () => new DomainError('service_unavailable', undefined, 'The search took too long. Retry shortly.', { 'Retry-After': '1' }),
  );
}
