import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Job, UnrecoverableError } from 'bullmq';
import { createHmac } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/config';
import { MetricsService } from '../../metrics/metrics.service';
import { APP_CONFIG } from '../../config/config.module';
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

/**
 * One delivery attempt: POST the stored bytes, signed; record the attempt; 2xx done, 410 disables the
 * subscription, anything else is thrown so BullMQ retries on the configured schedule.
 */
@Injectable()
export class DeliverWebhookJob {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly secrets: SecretBox,
    private readonly sender: WebhookSender,
    private readonly metrics: MetricsService,
  ) {}

  async process(job: Job<DeliverWebhookData>): Promise<void> {
    const [row]: DeliveryRow[] = await this.dataSource.query(
      `SELECT d.id, d.body, d.event_type, d.status, d.subscription_id, s.url, s.secret_encrypted, s.status AS subscription_status
         FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
        WHERE d.id = $1`,
      [job.data.deliveryId],
    );
    // Subscription deleted, or a late duplicate of a job whose delivery is already settled.
    if (!row || row.status !== 'pending') return;
    if (row.subscription_status !== 'active') {
      await this.settle(row.id, 'failed', null, 'Subscription is disabled');
      return;
    }

    const signature = createHmac('sha256', this.secrets.open(row.secret_encrypted)).update(row.body).digest('hex');
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

  /** The attempt row and the delivery's new state in one statement (atomic, one round trip). */
  private async record(deliveryId: string, r: SendResult, status: 'pending' | 'delivered' | 'failed', nextAttemptAt: Date | null, disableSubscription?: string): Promise<void> {
    await this.dataSource.query(
      `WITH d AS (
         UPDATE webhook_deliveries
            SET status = $2::varchar, attempts = attempts + 1, last_status_code = $3, last_error = $4, next_attempt_at = $5,
                delivered_at = CASE WHEN $2::varchar = 'delivered' THEN now() ELSE delivered_at END
          WHERE id = $1 RETURNING id)
       INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, duration_ms, error, response_body)
       SELECT d.id, now() - make_interval(secs => $6::double precision / 1000), $3, $6, $4, $7 FROM d`,
      [deliveryId, status, r.statusCode, r.error, nextAttemptAt, r.durationMs, r.responseBody?.replace(/\u0000/g, '') ?? null],
    );
    const outcome = status === 'delivered' ? 'delivered' : status === 'pending' ? 'retrying' : disableSubscription ? 'disabled' : 'failed';
    this.metrics.recordDelivery(outcome, r.durationMs / 1000);
    if (disableSubscription) {
      await this.dataSource.query(
        `UPDATE webhook_subscriptions SET status = 'disabled', disabled_reason = 'Endpoint answered 410 Gone.', updated_at = now() WHERE id = $1`,
        [disableSubscription],
      );
    }
  }

  private async settle(deliveryId: string, status: 'failed', statusCode: number | null, error: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhook_deliveries SET status = $2, last_status_code = $3, last_error = $4, next_attempt_at = NULL WHERE id = $1`,
      [deliveryId, status, statusCode, error],
    );
  }
}
