import { AsyncLocalStorage } from 'node:async_hooks';
import type { QueryRunner } from 'typeorm';

/**
 * The Idempotency-Key of the request being handled, visible to every transaction the handler runs (through
 * AsyncLocalStorage), so the key's row is written in the same transaction as the write it guards.
 */
export class IdempotencyContext {
  /** Set once a transaction carrying the key's row has committed: the guarded write is applied. */
  applied = false;
  /** The transaction that wrote the key's row and has not committed yet. */
  writer?: QueryRunner;
  /** That transaction's id (pg_current_xact_id), to settle a COMMIT whose answer was lost. */
  xid?: string;

  constructor(
    readonly scopeKey: string,
    readonly fingerprint: string,
  ) {}

  private static readonly storage = new AsyncLocalStorage<IdempotencyContext>();

  static current(): IdempotencyContext | undefined {
    return this.storage.getStore();
  }

  run<T>(work: () => T): T {
    return IdempotencyContext.storage.run(this, work);
  }
}

/**
 * Thrown inside a transaction whose key's row already exists: an earlier request with the same key committed its
 * write (Redis had forgotten it, or two retries raced). The transaction rolls back, so the write is never applied twice.
 */
export class IdempotencyKeyTaken extends Error {
  constructor() {
    super('The Idempotency-Key was already used by a request that committed');
    this.name = 'IdempotencyKeyTaken';
  }
}
