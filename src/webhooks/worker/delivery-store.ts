import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Batcher } from '../../common/batcher';
import { affected, sql } from '../../common/database';
import { errorMessage } from '../../common/error-message';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { SendResult } from './webhook-sender';

/** A delivery with what sending it needs of its subscription (the secrets still sealed). */
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
  /** The previous secret while a rotation's overlap lasts, else null. */
  secret_previous_encrypted: string | null;
  subscription_status: string;
}

export interface AttemptRecord {
  deliveryId: string;
  status: 'pending' | 'delivered' | 'failed';
  result: SendResult;
  /** When the request went out (a record written late keeps the real time). */
  attemptedAt: Date;
  nextAttemptAt: Date | null;
  /** The headers the attempt was sent with (signatures included, which are not secrets), shown in the delivery log. */
  requestHeaders: Record<string, string>;
}

/** A pending delivery past its due time (next_attempt_at, or created_at when never attempted). */
export interface DueDelivery {
  id: string;
  due: Date;
}

const RETRY_MS = 1000;
/** Successes waiting for PostgreSQL; past this the oldest are dropped (their deliveries are sent again: at-least-once). */
const MAX_UNRECORDED = 50_000;

/**
 * The delivery worker's PostgreSQL side, its one repository: every statement of webhooks/worker (the job's and the
 * sweep's) lives here. Concurrent jobs' reads and attempt records go out in batches (common/batcher.ts), one
 * statement for all the jobs that reached that step together. A 2xx whose record failed (PostgreSQL away) is kept and
 * written once the database is back, so the delivery is not sent again needlessly.
 */
/** What a partner and an operator read on a delivery that could not be signed; names no secret. */
export const UNREADABLE_SECRET_ERROR =
  "Not sent: the subscription's signing secret is unreadable with the service's current encryption key (WEBHOOK_SECRET_KEY changed). No attempt was used; it is retried once the key is restored, or set a new secret with rotate-secret.";

@Injectable()
export class DeliveryStore implements BeforeApplicationShutdown {
  private readonly logger = new Logger(DeliveryStore.name);
  private readonly loads = new Batcher<string, DeliveryRow | undefined>((ids) => this.loadMany(ids));
  private readonly records = new Batcher<AttemptRecord, void>((records) => this.recordMany(records));
  private readonly unrecorded = new Map<string, AttemptRecord>();
  private timer?: NodeJS.Timeout;

  private readonly disabledReason: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.disabledReason = `Every delivery failed for more than ${describeDuration(config.webhook.disableAfterMs)}, with no success.`;
  }

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
    await affected(this.dataSource, `UPDATE webhook_subscriptions SET status = 'disabled', disabled_reason = $2, updated_at = now() WHERE id = $1`, [
      subscriptionId,
      reason,
    ]);
  }

  /** A delivery that came due while its subscription is disabled: not sent, kept for `recover`. */
  async settleSkipped(deliveryId: string): Promise<void> {
    await affected(this.dataSource, `UPDATE webhook_deliveries SET status = 'skipped', next_attempt_at = NULL WHERE id = $1 AND status = 'pending'`, [
      deliveryId,
    ]);
  }

  /**
   * A delivery whose subscription's signing secret cannot be decrypted: not sent, no attempt counted, and `last_error`
   * says why, so the partner's delivery log and the operator see it. Tried again at `nextAttemptAt`.
   */
  async recordUnreadableSecret(deliveryId: string, nextAttemptAt: Date): Promise<void> {
    await affected(this.dataSource, `UPDATE webhook_deliveries SET last_error = $2, next_attempt_at = $3 WHERE id = $1 AND status = 'pending'`, [
      deliveryId,
      UNREADABLE_SECRET_ERROR,
      nextAttemptAt,
    ]);
  }

  /** One page of subscriptions' sealed current secrets, in id order after `afterId` (the start-up key check). */
  sealedSecretsPage(afterId: string, limit: number): Promise<Array<{ id: string; secret_encrypted: string }>> {
    return sql<{ id: string; secret_encrypted: string }>(
      this.dataSource,
      'SELECT id, secret_encrypted FROM webhook_subscriptions WHERE id > $1 ORDER BY id LIMIT $2',
      [afterId, limit],
    );
  }

  /**
   * One page of the delivery sweep: pending deliveries due more than `graceMs` ago, in (due, id) order, after the
   * last row of the previous page (keyset pagination; null for the first page).
   */
  duePage(graceMs: number, after: DueDelivery | null, limit: number): Promise<DueDelivery[]> {
    return sql<DueDelivery>(
      this.dataSource,
      `SELECT id, coalesce(next_attempt_at, created_at) AS due FROM webhook_deliveries
          WHERE status = 'pending' AND coalesce(next_attempt_at, created_at) < now() - make_interval(secs => $1::double precision / 1000)
            AND ($2::timestamptz IS NULL OR (coalesce(next_attempt_at, created_at), id) > ($2::timestamptz, $3::varchar))
          ORDER BY coalesce(next_attempt_at, created_at), id LIMIT ${limit}`,
      [graceMs, after?.due ?? null, after?.id ?? null],
    );
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
      else this.logger.warn({ err: errorMessage(err), deliveries: batch.length }, 'Successes left unrecorded at shutdown; those deliveries will be sent again');
    }
  }

  private async loadMany(ids: string[]): Promise<Array<DeliveryRow | undefined>> {
    const rows = await sql<DeliveryRow>(
      this.dataSource,
      `SELECT d.id, d.body, d.event_type, d.status, d.attempts, d.retry_base, d.next_attempt_at, d.subscription_id,
              s.url, s.secret_encrypted, s.status AS subscription_status,
              CASE WHEN s.previous_secret_expires_at > now() THEN s.secret_previous_encrypted END AS secret_previous_encrypted
         FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
        WHERE d.id = ANY($1::varchar[])`,
      [ids],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id));
  }

  /**
   * The attempt rows, the deliveries' new states and their subscriptions' health of a batch in one statement (atomic,
   * one round trip). Every attempt of a delivery that still exists is kept; only a pending delivery changes state (a
   * late record of an attempt whose delivery settled meanwhile is history, not a new outcome).
   *
   * Subscription health: `failing_since` is the first failed attempt since the last success. A
   * success clears it; a failure when it is older than WEBHOOK_DISABLE_AFTER_MS disables the subscription. A healthy
   * subscription's row is not written (the WHERE filters it out), so successes cost one index probe.
   */
  private async recordMany(records: AttemptRecord[]): Promise<void[]> {
    if (!records.length) return [];
    // An INSERT at the top: the driver answers its (empty) rows.
    await sql(
      this.dataSource,
      `WITH v AS (
         SELECT * FROM json_to_recordset($1::json)
           AS v(id varchar, status varchar, status_code int, error text, next_attempt_at timestamptz, duration_ms int, response_body text,
                attempted_at timestamptz, request_headers jsonb)),
       d AS (
         UPDATE webhook_deliveries w
            SET attempts = w.attempts + 1,
                status = CASE WHEN w.status = 'pending' THEN v.status ELSE w.status END,
                last_status_code = CASE WHEN w.status = 'pending' THEN v.status_code ELSE w.last_status_code END,
                last_error = CASE WHEN w.status = 'pending' THEN v.error ELSE w.last_error END,
                next_attempt_at = CASE WHEN w.status = 'pending' THEN v.next_attempt_at ELSE w.next_attempt_at END,
                delivered_at = CASE WHEN w.status = 'pending' AND v.status = 'delivered' THEN now() ELSE w.delivered_at END
           FROM v WHERE w.id = v.id RETURNING w.id, w.subscription_id),
       health AS (
         SELECT d.subscription_id, bool_or(v.status = 'delivered') AS ok, min(v.attempted_at) FILTER (WHERE v.status <> 'delivered') AS first_failed_at
           FROM v JOIN d ON d.id = v.id GROUP BY d.subscription_id),
       -- Only the rows that change, locked in id order: two batches at once never deadlock over two subscriptions.
       due AS (
         SELECT s.id, h.ok, h.first_failed_at FROM webhook_subscriptions s JOIN health h ON h.subscription_id = s.id
          WHERE CASE WHEN h.ok THEN s.failing_since IS NOT NULL
                     ELSE s.failing_since IS NULL OR (s.status = 'active' AND s.failing_since < now() - $2 * interval '1 millisecond') END
          ORDER BY s.id FOR UPDATE OF s),
       s AS (
         UPDATE webhook_subscriptions s
            SET failing_since = CASE WHEN h.ok THEN NULL ELSE coalesce(s.failing_since, h.first_failed_at) END,
                status = CASE WHEN NOT h.ok AND s.failing_since < now() - $2 * interval '1 millisecond' THEN 'disabled' ELSE s.status END,
                disabled_reason = CASE WHEN NOT h.ok AND s.failing_since < now() - $2 * interval '1 millisecond' THEN $3 ELSE s.disabled_reason END,
                updated_at = CASE WHEN NOT h.ok AND s.failing_since < now() - $2 * interval '1 millisecond' THEN now() ELSE s.updated_at END
           FROM due h WHERE s.id = h.id)
       INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, duration_ms, error, response_body, request_headers)
       SELECT v.id, v.attempted_at, v.status_code, v.duration_ms, v.error, v.response_body, v.request_headers
         FROM v JOIN d ON d.id = v.id`,
      [
        // One JSON document rather than an array per column: the driver would escape every element of a text array
        // (the request headers are JSON themselves), where JSON.stringify is one native call.
        JSON.stringify(
          records.map((r) => ({
            id: r.deliveryId,
            status: r.status,
            status_code: r.result.statusCode,
            error: r.result.error,
            next_attempt_at: r.nextAttemptAt,
            duration_ms: r.result.durationMs,
            response_body: r.result.responseBody?.replaceAll('\u0000', '') ?? null,
            attempted_at: r.attemptedAt,
            request_headers: r.requestHeaders,
          })),
        ),
        this.config.webhook.disableAfterMs,
        this.disabledReason,
      ],
    );
    return records.map(() => undefined);
  }
}

/** "5 days", "36 hours", "90 minutes", "1500 ms": the largest whole unit, for disabled_reason. */
export function describeDuration(ms: number): string {
  const units: Array<[number, string]> = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1000, 'second'],
  ];
  for (const [size, name] of units) if (ms >= size && ms % size === 0) return `${ms / size} ${name}${ms === size ? '' : 's'}`;
  return `${ms} ms`;
}
