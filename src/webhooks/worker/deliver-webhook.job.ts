import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Job, UnrecoverableError } from 'bullmq';
import { createHmac } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/config';
import { MetricsService } from '../../metrics/metrics.service';
import { APP_CONFIG } from '../../config/config.module';
import { Batcher } from '../../common/batcher';
import { SecretBox } from '../secret-box';
import type { DeliverWebhookData } from '../webhook-queue';
import { nextDelayMs, parseRetryAfter } from './retry-schedule';
import { SendResult, WebhookSender } from './webhook-sender';

/** Thrown for a failed attempt that will be retried; carries the delay already written to next_attempt_at. */
export class DeliveryAttemptFailed extends Error {
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
  }
}

interface DeliveryRow {
  id: string;
  body: string;
  event_type: string;
  status: string;
  subscription_id: string;
  url: string;
  secret_encrypted: string;
  subscription_status: string;
}

interface AttemptRecord {
  deliveryId: string;
  status: 'pending' | 'delivered' | 'failed';
  result: SendResult;
  nextAttemptAt: Date | null;
}

// Decrypted signing secrets by their sealed form (a rotated secret is a new sealed string): one AES-GCM open per
// subscription and process, not per delivery.
const SECRET_CACHE_SIZE = 1000;

/**
 * One delivery attempt: POST the stored bytes, signed; record the attempt; 2xx done, 410 disables the
 * subscription, anything else is thrown so BullMQ retries on the configured schedule.
 *
 * The worker runs many jobs at once; their reads and their attempt records go to PostgreSQL in batches
 * (common/batcher.ts), one statement for all the jobs that reached that step together. A job finishes only after
 * its batch has committed, so an attempt is never lost, only, on a crash, made again.
 */
@Injectable()
export class DeliverWebhookJob {
  private readonly loads = new Batcher<string, DeliveryRow | undefined>((ids) => this.loadMany(ids));
  private readonly records = new Batcher<AttemptRecord, void>((records) => this.recordMany(records));
  private readonly secretsBySealed = new Map<string, string>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly secrets: SecretBox,
    private readonly sender: WebhookSender,
    private readonly metrics: MetricsService,
  ) {}

  async process(job: Job<DeliverWebhookData>): Promise<void> {
    const row = await this.loads.call(job.data.deliveryId);
    // Subscription deleted, or a late duplicate of a job whose delivery is already settled.
    if (!row || row.status !== 'pending') return;
    if (row.subscription_status !== 'active') {
      await this.settle(row.id, 'failed', null, 'Subscription is disabled');
      return;
    }

    const signature = createHmac('sha256', this.secretOf(row.secret_encrypted)).update(row.body).digest('hex');
    const result = await this.sender.send(row.url, row.body, {
      'content-type': 'application/json',
      'x-svc-signature': `sha256=${signature}`,
      'x-svc-event': row.event_type,
      'x-svc-delivery': row.id,
    });
    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    if (ok) return this.record(row.id, result, 'delivered', null);

    if (result.statusCode === 410) {
      await this.record(row.id, result, 'failed', null, row.subscription_id);
      throw new UnrecoverableError('Endpoint answered 410 Gone: subscription disabled');
    }
    const retry = job.attemptsMade + 1; // failures so far, this one included
    const exhausted = retry >= (job.opts.attempts ?? 1);
    const delayMs = exhausted ? 0 : nextDelayMs(this.config.webhook.retryDelaysMs, retry, parseRetryAfter(result.retryAfter));
    await this.record(row.id, result, exhausted ? 'failed' : 'pending', exhausted ? null : new Date(Date.now() + delayMs));
    throw new DeliveryAttemptFailed(result.error ?? 'Delivery failed', delayMs);
  }

  /** Records the attempt and the delivery's new state (batched with other jobs' records); a 410 disables the subscription. */
  private async record(deliveryId: string, result: SendResult, status: AttemptRecord['status'], nextAttemptAt: Date | null, disableSubscription?: string): Promise<void> {
    await this.records.call({ deliveryId, status, result, nextAttemptAt });
    const outcome = status === 'delivered' ? 'delivered' : status === 'pending' ? 'retrying' : disableSubscription ? 'disabled' : 'failed';
    this.metrics.recordDelivery(outcome, result.durationMs / 1000);
    if (disableSubscription) {
      await this.dataSource.query(
        `UPDATE webhook_subscriptions SET status = 'disabled', disabled_reason = 'Endpoint answered 410 Gone.', updated_at = now() WHERE id = $1`,
        [disableSubscription],
      );
    }
  }

  private async loadMany(ids: string[]): Promise<Array<DeliveryRow | undefined>> {
    const rows: DeliveryRow[] = await this.dataSource.query(
      `SELECT d.id, d.body, d.event_type, d.status, d.subscription_id, s.url, s.secret_encrypted, s.status AS subscription_status
         FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
        WHERE d.id = ANY($1::varchar[])`,
      [ids],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id));
  }

  /** The attempt rows and the deliveries' new states of a batch in one statement (atomic, one round trip). */
  private async recordMany(records: AttemptRecord[]): Promise<void[]> {
    await this.dataSource.query(
      `WITH v AS (
         SELECT * FROM unnest($1::varchar[], $2::varchar[], $3::int[], $4::text[], $5::timestamptz[], $6::int[], $7::text[])
           AS v(id, status, status_code, error, next_attempt_at, duration_ms, response_body)),
       d AS (
         UPDATE webhook_deliveries w
            SET status = v.status, attempts = w.attempts + 1, last_status_code = v.status_code, last_error = v.error,
                next_attempt_at = v.next_attempt_at, delivered_at = CASE WHEN v.status = 'delivered' THEN now() ELSE w.delivered_at END
           FROM v WHERE w.id = v.id RETURNING w.id)
       INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, duration_ms, error, response_body)
       SELECT v.id, now() - make_interval(secs => v.duration_ms::double precision / 1000), v.status_code, v.duration_ms, v.error, v.response_body
         FROM v JOIN d ON d.id = v.id`,
      [
        records.map((r) => r.deliveryId),
        records.map((r) => r.status),
        records.map((r) => r.result.statusCode),
        records.map((r) => r.result.error),
        records.map((r) => r.nextAttemptAt),
        records.map((r) => r.result.durationMs),
        records.map((r) => r.result.responseBody?.replace(/\u0000/g, '') ?? null),
      ],
    );
    return records.map(() => undefined);
  }

  private secretOf(sealed: string): string {
    let secret = this.secretsBySealed.get(sealed);
    if (secret === undefined) {
      secret = this.secrets.open(sealed);
      if (this.secretsBySealed.size >= SECRET_CACHE_SIZE) this.secretsBySealed.clear();
      this.secretsBySealed.set(sealed, secret);
    }
    return secret;
  }

  private async settle(deliveryId: string, status: 'failed', statusCode: number | null, error: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhook_deliveries SET status = $2, last_status_code = $3, last_error = $4, next_attempt_at = NULL WHERE id = $1`,
      [deliveryId, status, statusCode, error],
    );
  }
}
