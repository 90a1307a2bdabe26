import { Inject, Injectable, Logger } from '@nestjs/common';
import { DelayedError, Job, UnrecoverableError } from 'bullmq';
import { errorMessage } from '../../common/error-message';
import { AppConfig } from '../../config/config';
import { MetricsService } from '../../metrics/metrics.service';
import { APP_CONFIG } from '../../config/config.module';
import { SecretBox } from '../secret-box';
import type { DeliverWebhookData } from '../webhook-queue';
import { AttemptRecord, DeliveryRow, DeliveryStore } from './delivery-store';
import { nextDelayMs, parseRetryAfter } from './retry-schedule';
import { signatureHeaders, SigningSecrets } from './signatures';
import { USER_AGENT, WebhookSender } from './webhook-sender';

/** Thrown for a failed attempt that will be retried; carries the delay already written to next_attempt_at. */
export class DeliveryAttemptFailed extends Error {
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
  }
}

// Decrypted signing secrets by their sealed form (a rotated secret is a new sealed string): one AES-GCM open per
// subscription and process, not per delivery.
const SECRET_CACHE_SIZE = 1000;
/** A job that runs this much before its delivery's next attempt time is a stale duplicate (clocks may differ a little). */
const EARLY_TOLERANCE_MS = 1000;
/** When PostgreSQL or Redis fails inside a job, it is tried again after this, without using up an attempt. */
export const INFRA_RETRY_MS = 2000;
/** A delivery whose signing secret cannot be decrypted is looked at again after this (no attempt used). */
const UNREADABLE_RETRY_MS = 60_000;

/**
 * One delivery attempt: POST the stored bytes, signed (X-SVC-Signature and Standard Webhooks, signatures.ts); record
 * the attempt; 2xx done, 410 disables the subscription, anything else is thrown so BullMQ retries on the configured
 * schedule. A delivery whose subscription is disabled when it comes due is recorded `skipped`, not sent.
 *
 * The delivery row is the truth, not the queue job: the retry budget is counted from its attempts, and a
 * job is only a way to reach it (the sweep re-enqueues due deliveries whose job Redis lost). A failure of
 * PostgreSQL or Redis is not an attempt: the job is put back without using one up, and a 2xx whose record failed
 * is recorded once the database is back. A job finishes only after its record has committed, so an attempt is
 * never lost, only, on a crash, made again.
 */
@Injectable()
export class DeliverWebhookJob {
  private readonly logger = new Logger(DeliverWebhookJob.name);
  private readonly secretsBySealed = new Map<string, string>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly secrets: SecretBox,
    private readonly sender: WebhookSender,
    private readonly store: DeliveryStore,
    private readonly metrics: MetricsService,
  ) {}

  async process(job: Job<DeliverWebhookData>, token?: string): Promise<void> {
    let row: DeliveryRow | undefined;
    try {
      row = await this.store.load(job.data.deliveryId);
    } catch (err) {
      return this.retryLater(job, token, err);
    }
    // Subscription deleted, a late duplicate of a job whose delivery is already settled, or a duplicate that came
    // before the scheduled retry (that one, or the sweep, sends it in time).
    if (!row || row.status !== 'pending') return;
    if (row.next_attempt_at && row.next_attempt_at.getTime() > Date.now() + EARLY_TOLERANCE_MS) return;
    if (row.subscription_status !== 'active') {
      try {
        await this.store.settleSkipped(row.id);
      } catch (err) {
        return this.retryLater(job, token, err);
      }
      return;
    }

    const attemptedAt = new Date();
    let secrets: SigningSecrets;
    try {
      secrets = {
        current: this.secretOf(row.secret_encrypted),
        previous: row.secret_previous_encrypted ? this.secretOf(row.secret_previous_encrypted) : null,
      };
    } catch {
      return this.unreadableSecret(job, token, row.id);
    }
    const requestHeaders = {
      'content-type': 'application/json',
      ...signatureHeaders(row.id, row.body, secrets, Math.floor(attemptedAt.getTime() / 1000)),
      'x-svc-event': row.event_type,
      'x-svc-delivery': row.id,
      'user-agent': USER_AGENT,
    };
    const result = await this.sender.send(row.url, row.body, requestHeaders);
    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    if (ok) {
      const record: AttemptRecord = { deliveryId: row.id, status: 'delivered', result, attemptedAt, nextAttemptAt: null, requestHeaders };
      await this.store.record(record).catch(() => this.store.recordLater(record));
      this.metrics.recordDelivery('delivered', result.durationMs / 1000);
      return;
    }

    const retry = row.attempts - row.retry_base + 1; // attempts of this schedule so far, this one included
    const exhausted = result.statusCode === 410 || retry >= this.config.webhook.retryDelaysMs.length + 1;
    const delayMs = exhausted ? 0 : nextDelayMs(this.config.webhook.retryDelaysMs, retry, parseRetryAfter(result.retryAfter));
    try {
      await this.store.record({
        deliveryId: row.id,
        status: exhausted ? 'failed' : 'pending',
        result,
        attemptedAt,
        nextAttemptAt: exhausted ? null : new Date(Date.now() + delayMs),
        requestHeaders,
      });
      if (result.statusCode === 410) await this.store.disableSubscription(row.subscription_id, 'Endpoint answered 410 Gone.');
    } catch (err) {
      // Not recorded, so not counted: the attempt is made again once PostgreSQL answers.
      return this.retryLater(job, token, err);
    }
    this.metrics.recordDelivery(result.statusCode === 410 ? 'disabled' : exhausted ? 'failed' : 'retrying', result.durationMs / 1000);
    if (result.statusCode === 410) throw new UnrecoverableError('Endpoint answered 410 Gone: subscription disabled');
    if (exhausted) throw new UnrecoverableError(`Delivery failed after ${retry} attempts: ${result.error ?? 'failed'}`);
    throw new DeliveryAttemptFailed(result.error ?? 'Delivery failed', delayMs);
  }

  /**
   * PostgreSQL (or Redis) failed: puts the job back in the queue for INFRA_RETRY_MS without counting an attempt. If
   * Redis cannot take it either, the error goes to BullMQ; should the job be lost, the sweep finds the delivery.
   */
  private async retryLater(job: Job<DeliverWebhookData>, token: string | undefined, err: unknown): Promise<never> {
    this.logger.warn({ err: errorMessage(err), delivery: job.data.deliveryId }, 'Delivery deferred: a dependency failed (no attempt used)');
    try {
      await job.moveToDelayed(Date.now() + INFRA_RETRY_MS, token);
    } catch {
      throw err;
    }
    throw new DelayedError();
  }

  /**
   * The secret was sealed under another WEBHOOK_SECRET_KEY: nothing can be signed. Recorded on the delivery (no attempt
   * used), and the job waits UNREADABLE_RETRY_MS, in case the operator restores the key or the partner sets a new secret.
   */
  private async unreadableSecret(job: Job<DeliverWebhookData>, token: string | undefined, deliveryId: string): Promise<never> {
    const retryAt = new Date(Date.now() + UNREADABLE_RETRY_MS);
    this.logger.warn({ delivery: deliveryId }, 'Delivery not sent: its signing secret cannot be decrypted with the current WEBHOOK_SECRET_KEY');
    try {
      await this.store.recordUnreadableSecret(deliveryId, retryAt);
    } catch (err) {
      return this.retryLater(job, token, err);
    }
    await job.moveToDelayed(retryAt.getTime(), token);
    throw new DelayedError();
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
}
