import { Column } from 'typeorm';

export type Mode = 'test' | 'live';
export const MODES: Mode[] = ['test', 'live'];

/** Who owns a record: every partner-owned row carries both, and every partner-triggered query filters on both. */
export interface Scope {
  partnerId: number;
  mode: Mode;
}

/**
 * The tenancy filter of hand-written SQL, written once. The scope's two values are always a statement's first two
 * parameters: `WHERE ${inScope()} AND id = $3` with `scopeParams(scope, id)`; `inScope('u')` for a table alias.
 */
export function inScope(alias?: string): string {
  const column = alias ? `${alias}.` : '';
  return `${column}partner_id = $1 AND ${column}mode = $2`;
}

/**
 * The filter of a statement about a partner across both modes (a plan's limits count test and live together): the
 * partner id is always the first parameter, `WHERE ${inPartner('j')} AND j.status <> 'completed'` with `[partnerId]`.
 */
export function inPartner(alias?: string): string {
  return `${alias ? `${alias}.` : ''}partner_id = $1`;
}

/** A scoped statement's parameters: partner and mode first (see `inScope`), then the statement's own. */
export function scopeParams(scope: Scope, ...params: unknown[]): unknown[] {
  return [scope.partnerId, scope.mode, ...params];
}

/** Columns of every partner-owned table. */
export abstract class PartnerOwned {
  @Column({ name: 'partner_id', type: 'int' })
  partnerId: number;

  @Column({ type: 'varchar', length: 4 })
  mode: Mode;
}
