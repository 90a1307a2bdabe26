import { Column, DeepPartial, EntityManager, EntityMetadata, EntityTarget, FindOptionsWhere, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { sql } from './database';

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

/**
 * The one place that applies partner and mode to queries a partner can trigger,
 * so no feature can forget it: records of another partner or mode simply do not exist.
 */
export class Scoped {
  constructor(
    readonly em: EntityManager,
    readonly scope: Scope,
  ) {}

  where<T extends PartnerOwned>(where: FindOptionsWhere<T> = {}): FindOptionsWhere<T> {
    return { ...where, partnerId: this.scope.partnerId, mode: this.scope.mode };
  }

  /**
   * The scoped row matching these column equalities, optionally locked FOR UPDATE. Plain equalities (every lookup of
   * a request's hot path) run a statement built once per entity and shape; anything else goes through TypeORM.
   */
  async findOne<T extends PartnerOwned & ObjectLiteral>(entity: EntityTarget<T>, where: FindOptionsWhere<T>, lock?: 'pessimistic_write'): Promise<T | null> {
    const full = this.where(where) as Record<string, unknown>;
    const metadata = this.em.connection.getMetadata(entity);
    const lookup = equalityLookup(metadata, Object.keys(full), full, Boolean(lock));
    if (!lookup) return this.em.findOne(entity, { where: full as FindOptionsWhere<T>, ...(lock ? { lock: { mode: lock } } : {}) });
    // The entity's selected columns, by database name; the driver converts each value below.
    const rows = await sql<Record<string, unknown>>(
      this.em,
      lookup.sql,
      lookup.keys.map((k) => full[k]),
    );
    if (!rows.length) return null;
    const found = metadata.create() as T;
    const driver = this.em.connection.driver;
    for (const column of lookup.selected) column.setEntityValue(found, driver.prepareHydratedValue(rows[0][column.databaseName], column));
    return found;
  }

  /** A query builder already restricted to the scope (alias.partner_id and alias.mode). */
  query<T extends PartnerOwned & ObjectLiteral>(entity: EntityTarget<T>, alias: string): SelectQueryBuilder<T> {
    return this.em.createQueryBuilder(entity, alias).where(`${alias}.partner_id = :scopePartnerId AND ${alias}.mode = :scopeMode`, {
      scopePartnerId: this.scope.partnerId,
      scopeMode: this.scope.mode,
    });
  }

  create<T extends PartnerOwned & ObjectLiteral>(entity: EntityTarget<T>, values: Omit<T, 'partnerId' | 'mode'> | Partial<T>): T {
    return this.em.create<T, DeepPartial<T>>(entity, { ...values, partnerId: this.scope.partnerId, mode: this.scope.mode } as DeepPartial<T>);
  }
}

export function scoped(em: EntityManager, scope: Scope): Scoped {
  return new Scoped(em, scope);
}

type ColumnMetadata = EntityMetadata['columns'][number];
interface EqualityLookup {
  sql: string;
  keys: string[];
  selected: ColumnMetadata[];
}

// TypeORM's query builder spent more CPU assembling the same SELECT on every call than PostgreSQL spent answering it.
const lookups = new WeakMap<EntityMetadata, Map<string, EqualityLookup | null>>();

/** `SELECT <columns> FROM <table> WHERE a = $1 AND … LIMIT 1 [FOR UPDATE]`, or null when a value is not a plain scalar. */
function equalityLookup(metadata: EntityMetadata, keys: string[], values: Record<string, unknown>, lock: boolean): EqualityLookup | null {
  if (keys.some((k) => values[k] === null || values[k] === undefined || (typeof values[k] === 'object' && !(values[k] instanceof Date)))) return null;
  const shape = `${keys.join(',')}${lock ? ' lock' : ''}`;
  let byShape = lookups.get(metadata);
  if (!byShape) lookups.set(metadata, (byShape = new Map<string, EqualityLookup | null>()));
  let lookup = byShape.get(shape);
  if (lookup === undefined) {
    const columns = keys.map((k) => metadata.findColumnWithPropertyPath(k));
    if (columns.some((c) => !c || c.relationMetadata || c.transformer)) {
      lookup = null;
    } else {
      const selected = metadata.columns.filter((c) => c.isSelect && !c.isVirtual && !c.relationMetadata);
      const quote = (name: string) => `"${name}"`;
      lookup = {
        keys,
        selected,
        sql:
          `SELECT ${selected.map((c) => quote(c.databaseName)).join(', ')} FROM ${quote(metadata.tableName)}` +
          ` WHERE ${columns.map((c, i) => `${quote(c!.databaseName)} = $${i + 1}`).join(' AND ')} LIMIT 1${lock ? ' FOR UPDATE' : ''}`,
      };
    }
    byShape.set(shape, lookup);
  }
  return lookup;
}
