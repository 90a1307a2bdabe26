import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/**
 * Something another feature keeps in step with the catalogue (search's documents), told about a bulk load inside the
 * load's transaction: the catalogue loader knows this interface, not the feature, which registers itself at start-up.
 */
export interface CatalogueIndex {
  /** Before the load's first write (search defers its per-row triggers to `afterBulkLoad`). */
  beforeBulkLoad(em: EntityManager): Promise<void>;
  /** After the load's last write, with every course it wrote. */
  afterBulkLoad(em: EntityManager, courseIds: number[]): Promise<void>;
}

@Injectable()
export class CatalogueIndexes {
  private readonly indexes: CatalogueIndex[] = [];

  register(index: CatalogueIndex): void {
    this.indexes.push(index);
  }

  /** The registered indexes; a loader outside the application is given its own. */
  list(): readonly CatalogueIndex[] {
    return this.indexes;
  }
}
