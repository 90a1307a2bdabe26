import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { errorMessage } from '../common/error-message';
import { IdempotencyRepository, StoredResponse } from './idempotency.repository';

const RETRY_MS = 2000;
/** Responses waiting for PostgreSQL to come back; past this many the oldest are dropped (Redis still has them). */
const MAX_WAITING = 10_000;

export interface KeyRecord {
  fingerprint: string;
  /** Null while the guarded write is committed but its response is not stored yet. */
  status: number | null;
  /** The sealed response envelope. */
  sealed: string | null;
}

/**
 * Idempotency-Key outcomes in PostgreSQL (IdempotencyRepository): the record that survives Redis losing its data.
 * A response whose store failed (PostgreSQL away right after the commit) is kept in memory and stored when the
 * database is back, so a replay after a later Redis wipe still finds it.
 */
@Injectable()
export class IdempotencyRecords implements OnApplicationShutdown {
  private readonly logger = new Logger(IdempotencyRecords.name);
  private readonly waiting = new Map<string, StoredResponse>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly repo: IdempotencyRepository) {}

  async find(scopeKey: string): Promise<KeyRecord | null> {
    const row = await this.repo.find(scopeKey);
    return row ? { fingerprint: row.fingerprint, status: row.status, sealed: row.body } : null;
  }

  /**
   * Writes the key's row inside the caller's transaction and returns the transaction's id; null when a live row exists (the write was applied by an
   * earlier request). A row of another, uncommitted transaction makes this wait for it: then it is applied or gone.
   */
  markApplied(em: EntityManager, scopeKey: string, fingerprint: string): Promise<string | null> {
    return this.repo.markApplied(em, scopeKey, fingerprint);
  }

  /** Stores the response; if PostgreSQL is away it is kept and stored later. Never rejects. */
  async saveResponse(response: StoredResponse): Promise<void> {
    try {
      await this.repo.storeResponses([response]);
    } catch (err) {
      this.logger.warn({ err: errorMessage(err) }, 'Storing an idempotent response in PostgreSQL failed; retrying in the background');
      this.waiting.delete(response.scopeKey);
      this.waiting.set(response.scopeKey, response);
      if (this.waiting.size > MAX_WAITING) this.waiting.delete(this.waiting.keys().next().value!);
      this.timer ??= setTimeout(() => void this.retry(), RETRY_MS);
    }
  }

  /** Deletes rows past their 24 hours, a batch at a time; returns how many went. */
  async deleteExpired(batch = 5000): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.repo.deleteExpiredBatch(batch);
      total += deleted;
      if (deleted < batch) return total;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    clearTimeout(this.timer);
    if (this.waiting.size) await this.retry(false);
  }

  private async retry(again = true): Promise<void> {
    this.timer = undefined;
    const batch = [...this.waiting.values()];
    try {
      await this.repo.storeResponses(batch);
      for (const r of batch) if (this.waiting.get(r.scopeKey) === r) this.waiting.delete(r.scopeKey);
      this.logger.log({ stored: batch.length }, 'Idempotent responses stored after PostgreSQL came back');
    } catch {
      if (again) this.timer = setTimeout(() => void this.retry(), RETRY_MS);
    }
  }
}
