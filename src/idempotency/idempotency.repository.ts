import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { affected, prepared, sql, sqlOne } from '../common/database';

/** 24 h, as in Redis; rows older than this are ignored and taken over by a new request with the same key. */
const KEEP = `interval '24 hours'`;

/** An idempotency_keys row as `find` reads it: status and body stay null until the response is stored. */
export interface IdempotencyKeyRow {
  fingerprint: string;
  status: number | null;
  body: string | null;
}

/** A finished request's outcome: `sealed` is the response envelope sealed by ResponseBox. */
export interface StoredResponse {
  scopeKey: string;
  fingerprint: string;
  status: number;
  sealed: string;
}

// A keyed POST sends the first, and its transaction the second; the third completes its row.
const FIND = prepared(`SELECT fingerprint, status, body FROM idempotency_keys WHERE scope_key = $1 AND created_at > now() - ${KEEP}`);
const MARK_APPLIED = prepared(
  `INSERT INTO idempotency_keys AS k (scope_key, fingerprint) VALUES ($1, $2)
   ON CONFLICT (scope_key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, status = NULL, body = NULL, created_at = now(), completed_at = NULL
    WHERE k.created_at <= now() - ${KEEP}
   RETURNING pg_current_xact_id()::text AS xid`,
);
const STORE_RESPONSES = prepared(
  `INSERT INTO idempotency_keys AS k (scope_key, fingerprint, status, body, completed_at)
   SELECT *, now() FROM unnest($1::text[], $2::varchar[], $3::int[], $4::text[])
   ON CONFLICT (scope_key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, status = EXCLUDED.status, body = EXCLUDED.body, completed_at = now(),
          created_at = CASE WHEN k.created_at <= now() - ${KEEP} THEN now() ELSE k.created_at END
    WHERE (k.status IS NULL AND k.fingerprint = EXCLUDED.fingerprint) OR k.created_at <= now() - ${KEEP}`,
);

/** Every statement of the idempotency feature (table idempotency_keys). */
@Injectable()
export class IdempotencyRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The key's live row (written within the last 24 hours), or null. */
  find(scopeKey: string): Promise<IdempotencyKeyRow | null> {
    return sqlOne<IdempotencyKeyRow>(this.dataSource, FIND, [scopeKey]);
  }

  /**
   * Writes the key's row inside the caller's transaction and returns the transaction's id; null when a live row
   * exists. A row of another, uncommitted transaction makes this wait for it.
   */
  async markApplied(em: EntityManager, scopeKey: string, fingerprint: string): Promise<string | null> {
    // The transaction's id comes back with the row: if the COMMIT's answer is lost, pg_xact_status(xid) settles it.
    const rows = await sql<{ xid: string }>(em, MARK_APPLIED, [scopeKey, fingerprint]);
    return rows[0]?.xid ?? null;
  }

  /**
   * Completes the rows written with the guarded writes, or inserts rows for requests that wrote nothing in a
   * transaction (a refusal, a read). A row already holding a response keeps it: the first response wins.
   */
  async storeResponses(responses: StoredResponse[]): Promise<void> {
    await sql(this.dataSource, STORE_RESPONSES, [
      responses.map((r) => r.scopeKey),
      responses.map((r) => r.fingerprint),
      responses.map((r) => r.status),
      responses.map((r) => r.sealed),
    ]);
  }

  /** Deletes up to `batch` rows past their 24 hours; how many went. */
  deleteExpiredBatch(batch: number): Promise<number> {
    return affected(
      this.dataSource,
      `DELETE FROM idempotency_keys WHERE scope_key IN (SELECT scope_key FROM idempotency_keys WHERE created_at <= now() - ${KEEP} LIMIT ${batch})`,
    );
  }
}
