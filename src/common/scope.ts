import { Column, EntityManager, EntityTarget, FindOptionsWhere, ObjectLiteral, SelectQueryBuilder } from 'typeorm';

export type Mode = 'test' | 'live';
export const MODES: Mode[] = ['test', 'live'];

/** Who owns a record: every partner-owned row carries both, and every partner-triggered query filters on both. */
export interface Scope {
  partnerId: number;
  mode: Mode;
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
    return { ...where, partnerId: this.scope.partnerId, mode: this.scope.mode } as FindOptionsWhere<T>;
  }

  findOne<T extends PartnerOwned & ObjectLiteral>(entity: EntityTarget<T>, where: FindOptionsWhere<T>, lock?: 'pessimistic_write'): Promise<T | null> {
    return this.em.findOne(entity, { where: this.where(where), ...(lock ? { lock: { mode: lock } } : {}) });
  }

  /** A query builder already restricted to the scope (alias.partner_id and alias.mode). */
  query<T extends PartnerOwned & ObjectLiteral>(entity: EntityTarget<T>, alias: string): SelectQueryBuilder<T> {
    return this.em
      .createQueryBuilder(entity, alias)
      .where(`${alias}.partner_id = :scopePartnerId AND ${alias}.mode = :scopeMode`, {
        scopePartnerId: this.scope.partnerId,
        scopeMode: this.scope.mode,
      });
  }

  create<T extends PartnerOwned & ObjectLiteral>(entity: EntityTarget<T>, values: Omit<T, 'partnerId' | 'mode'> | Partial<T>): T {
    return this.em.create(entity, { ...(values as object), partnerId: this.scope.partnerId, mode: this.scope.mode } as never) as T;
  }
}

export function scoped(em: EntityManager, scope: Scope): Scoped {
  return new Scoped(em, scope);
}
