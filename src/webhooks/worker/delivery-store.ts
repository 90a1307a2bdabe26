import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Batcher } from '../../common/batcher';
import type { SendResult } from './webhook-sender';

export interface DeliveryRow {
  id: string;
  body: string;
  event_type: string;
  status: string;
  attempts: number;
  retry_base: number;
  next_attempt_at: Date | null;
  subscription_id: string;
  url: string;
  secret_encrypted: string;
  subscription_status: string;
}

export interface AttemptRecord {
  deliveryId: string;
  status: 'pending' | 'delivered' | 'failed';
  result: SendResult;
  /** When the request went out (a record written late keeps the real time). */
  attemptedAt: Date;
  nextAttemptAt: Date | null;
}

const RETRY_MS = 1000;
/** Successes waiting for PostgreSQL; past this the oldest are dropped (their deliveries are sent again: at-least-once). */
const MAX_UNRECORDED = 50_000;

/**
 * The delivery worker's PostgreSQL side. Concurrent jobs' reads and attempt records go out in batches
 * (common/batcher.ts), one statement for all the jobs that reached that step together. A 2xx whose record failed
 * (PostgreSQL away) is kept and written once the database is back, so the delivery is not sent again needlessly.
 */
@Injectable()
export class DeliveryStore implements BeforeApplicationShutdown {
  private readonly logger = new Logger(DeliveryStore.name);
  private readonly loads = new Batcher<string, DeliveryRow | undefined>((ids) => this.loadMany(ids));
  private readonly records = new Batcher<AttemptRecord, void>((records) => this.recordMany(records));
  private readonly unrecorded = new Map<string, AttemptRecord>();
  private timer?: NodeJS.Timeout;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  load(deliveryId: string): Promise<DeliveryRow | undefined> {
    return this.loads.call(deliveryId);
  }

  /** The attempt and the delivery's new state, atomically (batched with other jobs' records). */
  record(record: AttemptRecord): Promise<void> {
    return this.records.call(record);
  }

  /** Records a success later, when PostgreSQL is back; never rejects. */
  recordLater(record: AttemptRecord): void {
    this.unrecorded.set(record.deliveryId, record);
    if (this.unrecorded.size > MAX_UNRECORDED) this.unrecorded.delete(this.unrecorded.keys().next().value!);
    this.timer ??= setTimeout(() => void this.retryUnrecorded(), RETRY_MS);
  }

  async disableSubscription(subscriptionId: string, reason: string): Promise<void> {
    await this.dataSource.query(`UPDATE webhook_subscriptions SET status = 'disabled', disabled_reason = $2, updated_at = now() WHERE id = $1`, [subscriptionId, reason]);
  }

  async settleFailed(deliveryId: string, error: string): Promise<void> {
    await this.dataSource.query(`UPDATE webhook_deliveries SET status = 'failed', last_status_code = NULL, last_error = $2, next_attempt_at = NULL WHERE id = $1`, [deliveryId, error]);
  }

  /** On shutdown, while the pool is open: one last try for the successes still unrecorded. */
  async beforeApplicationShutdown(): Promise<void> {
    clearTimeout(this.timer);
    if (this.unrecorded.size) await this.retryUnrecorded(false);
  }

  private async retryUnrecorded(again = true): Promise<void> {
    this.timer = undefined;
    const batch = [...this.unrecorded.values()];
    try {
      await this.recordMany(batch);
      for (const r of batch) if (this.unrecorded.get(r.deliveryId) === r) this.unrecorded.delete(r.deliveryId);
      this.logger.log({ recorded: batch.length }, 'Deliveries whose success could not be recorded are recorded now');
    } catch (err) {
      if (again) this.timer = setTimeout(() => void this.retryUnrecorded(), RETRY_MS);
      else this.logger.warn({ err: (err as Error).message, deliveries: batch.length }, 'Successes left unrecorded at shutdown; those deliveries will be sent again');
    }
  }

  private async loadMany(ids: string[]): Promise<Array<DeliveryRow | undefined>> {
    const rows: DeliveryRow[] = await this.dataSource.query(
      `SELECT d.id, d.body, d.event_type, d.status, d.attempts, d.retry_base, d.next_attempt_at, d.subscription_id,
              s.url, s.secret_encrypted, s.status AS subscription_status
         FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
        WHERE d.id = ANY($1::varchar[])`,
      [ids],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id));
  }

  /**
   * The attempt rows and the deliveries' new states of a batch in one statement (atomic, one round trip). Only a
   * pending delivery takes a record: a late record of an attempt whose delivery has settled meanwhile changes nothing.
   */
  private async recordMany(records: AttemptRecord[]): Promise<void[]> {
    if (!records.length) return [];
    await this.dataSource.query(
      `WITH v AS (
         SELECT * FROM unnest($1::varchar[], $2::varchar[], $3::int[], $4::text[], $5::timestamptz[], $6::int[], $7::text[], $8::timestamptz[])
           AS v(id, status, status_code, error, next_attempt_at, duration_ms, response_body, attempted_at)),
       d AS (
         UPDATE webhook_deliveries w
            SET status = v.status, attempts = w.attempts + 1, last_status_code = v.status_code, last_error = v.error,
                next_attempt_at = v.next_attempt_at, delivered_at = CASE WHEN v.status = 'delivered' THEN now() ELSE w.delivered_at END
           FROM v WHERE w.id = v.id AND w.status = 'pending' RETURNING w.id)
       INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, duration_ms, error, response_body)
       SELECT v.id, v.attempted_at, v.status_code, v.duration_ms, v.error, v.response_body
         FROM v JOIN d ON d.id = v.id`,
      [
        records.map((r) => r.deliveryId),
        records.map((r) => r.status),
        records.map((r) => r.result.statusCode),
        records.map((r) => r.result.error),
        records.map((r) => r.nextAttemptAt),
        records.map((r) => r.result.durationMs),
        records.map((r) => r.result.responseBody?.replace(/\u0000/g, '') ?? null),
        records.map((r) => r.attemptedAt),
      ],
    );
    return records.map(() => undefined);
  }
}
