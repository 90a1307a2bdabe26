import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { affected, sql, sqlOne } from '../common/database';
import { errorMessage } from '../common/error-message';

/** 24 h, as in Redis; rows older than this are ignored and taken over by a new request with the same key. */
const KEEP = `interval '24 hours'`;
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

interface Response {
  scopeKey: string;
  fingerprint: string;
  status: number;
  sealed: string;
}

/**
 * Idempotency-Key outcomes in PostgreSQL (table idempotency_keys): the record that survives Redis losing its data.
 * A response whose store failed (PostgreSQL away right after the commit) is kept in memory and stored when the
 * database is back, so a replay after a later Redis wipe still finds it.
 */
@Injectable()
export class IdempotencyRecords implements OnApplicationShutdown {
  private readonly logger = new Logger(IdempotencyRecords.name);
  private readonly waiting = new Map<string, Response>();
  private timer?: NodeJS.Timeout;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async find(scopeKey: string): Promise<KeyRecord | null> {
    const row = await sqlOne<{ fingerprint: string; status: number | null; body: string | null }>(
      this.dataSource,
      `SELECT fingerprint, status, body FROM idempotency_keys WHERE scope_key = $1 AND created_at > now() - ${KEEP}`,
      [scopeKey],
    );
    return row ? { fingerprint: row.fingerprint, status: row.status, sealed: row.body } : null;
  }

  /**
   * Writes the key's row inside the caller's transaction and returns the transaction's id; null when a live row exists (the write was applied by an
   * earlier request). A row of another, uncommitted transaction makes this wait for it: then it is applied or gone.
   */
  async markApplied(em: EntityManager, scopeKey: string, fingerprint: string): Promise<string | null> {
    // The transaction's id comes back with the row: if the COMMIT's answer is lost, pg_xact_status(xid) settles it.
    const rows = await sql<{ xid: string }>(
      em,
      `INSERT INTO idempotency_keys AS k (scope_key, fingerprint) VALUES ($1, $2)
       ON CONFLICT (scope_key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, status = NULL, body = NULL, created_at = now(), completed_at = NULL
        WHERE k.created_at <= now() - ${KEEP}
       RETURNING pg_current_xact_id()::text AS xid`,
      [scopeKey, fingerprint],
    );
    return rows[0]?.xid ?? null;
  }

  /** Stores the response; if PostgreSQL is away it is kept and stored later. Never rejects. */
  async saveResponse(response: Response): Promise<void> {
    try {
      await this.store([response]);
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
      const deleted = await affected(
        this.dataSource,
        `DELETE FROM idempotency_keys WHERE scope_key IN (SELECT scope_key FROM idempotency_keys WHERE created_at <= now() - ${KEEP} LIMIT ${batch})`,
      );
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
      await this.store(batch);
      for (const r of batch) if (this.waiting.get(r.scopeKey) === r) this.waiting.delete(r.scopeKey);
      this.logger.log({ stored: batch.length }, 'Idempotent responses stored after PostgreSQL came back');
    } catch {
      if (again) this.timer = setTimeout(() => void this.retry(), RETRY_MS);
    }
  }

  /**
   * Completes the rows written with the guarded writes, or inserts rows for requests that wrote nothing in a
   * transaction (a refusal, a read). A row already holding a response keeps it: the first response wins.
   */
  private async store(responses: Response[]): Promise<void> {
    await sql(
      this.dataSource,
      `INSERT INTO idempotency_keys AS k (scope_key, fingerprint, status, body, completed_at)
       SELECT *, now() FROM unnest($1::text[], $2::varchar[], $3::int[], $4::text[])
       ON CONFLICT (scope_key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, status = EXCLUDED.status, body = EXCLUDED.body, completed_at = now(),
              created_at = CASE WHEN k.created_at <= now() - ${KEEP} THEN now() ELSE k.created_at END
        WHERE (k.status IS NULL AND k.fingerprint = EXCLUDED.fingerprint) OR k.created_at <= now() - ${KEEP}`,
      [responses.map((r) => r.scopeKey), responses.map((r) => r.fingerprint), responses.map((r) => r.status), responses.map((r) => r.sealed)],
    );
  }
}
