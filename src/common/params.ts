import type { PipeTransform } from '@nestjs/common';
import { DomainError, type ErrorCode } from './errors';
import type { IdPrefix } from './ids';

/** The largest value of a PostgreSQL `integer` column: a larger id names no row. */
export const MAX_INT_ID = 2_147_483_647;

export interface IntIdOptions {
  /** The field error's message; default `<field> must be a positive integer`. */
  message?: string;
  /** An integer outside 1 … MAX_INT_ID names no row: answer this 404 code at once rather than ask the database. */
  notFound?: ErrorCode;
}

/**
 * A positive-integer path id: `@Param('id', intIdParam()) id: number`. Anything that is not an integer is 400
 * `validation_failed` with `[{ field, message }]`. It accepts exactly what Nest's ParseIntPipe accepted here before,
 * after the global ValidationPipe has turned the segment into a number (so `1e3` is 1000), so no route's answer moved.
 */
export function intIdParam(field = 'id', options: IntIdOptions = {}): PipeTransform<unknown, number> {
  const message = options.message ?? `${field} must be a positive integer`;
  return {
    transform(value: unknown): number {
      const integer = (typeof value === 'string' || typeof value === 'number') && /^-?\d+$/.test(String(value)) && Number.isFinite(Number(value));
      if (!integer) throw new DomainError('validation_failed', [{ field, message }]);
      const id = parseInt(String(value), 10);
      if (options.notFound && (id < 1 || id > MAX_INT_ID)) throw new DomainError(options.notFound);
      return id;
    },
  };
}

/**
 * The shape of a prefixed string id: the prefix, `_`, then base62 characters: `length` of them (what `newId` makes:
 * 22) or, by default, 1 to 36 (ids whose routes never pinned the length).
 */
export function prefixedIdShape(prefix: IdPrefix, length?: number): RegExp {
  return new RegExp(`^${prefix}_[0-9A-Za-z]{${length ?? '1,36'}}$`);
}

/**
 * A prefixed string id: `@Param('id', prefixedIdParam('whk', 'webhook_not_found')) id: string`. A malformed id names
 * no row, so it gets the resource's 404 at once, the answer an unknown id gets, without the database round trip.
 */
export function prefixedIdParam(prefix: IdPrefix, notFound: ErrorCode, length?: number): PipeTransform<unknown, string> {
  const shape = prefixedIdShape(prefix, length);
  return {
    transform(value: unknown): string {
      if (typeof value !== 'string' || !shape.test(value)) throw new DomainError(notFound);
      return value;
    },
  };
}
