import { Inject, Injectable, Logger } from '@nestjs/common';
import { DelayedError, Job, UnrecoverableError } from 'bullmq';
import { errorMessage } from '../../common/error-message';
import { AppConfig } from '../../config/config';
import { MetricsService } from '../../metrics/metrics.service';
import { APP_CONFIG } from '../../config/config.module';
import { SecretBox } from '../secret-box';
import { DeliverWebhookData, WebhookQueue } from '../webhook-queue';
import { Limiter } from '../../common/limiter';
import { AttemptClaims } from './attempt-claims';
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
 * First attempts of shared jobs running at once in this process, beside the jobs of single deliveries the worker's
 * own concurrency bounds: the same order of outbound requests as one delivery per job gave.
 */
const FIRST_ATTEMPT_CONCURRENCY = 64;

/**
 * What became of one attempt: settled or nothing to do (`done`), sent and failed with a retry due after `delayMs`
 * (recorded), failed for good (recorded), or not made because PostgreSQL or Redis failed or the secret is unreadable
 * (no attempt used; made again after `delayMs`).
 */
type AttemptOutcome =
  { kind: 'done' } | { kind: 'retry'; delayMs: number; error: string } | { kind: 'final'; error: string } | { kind: 'deferred'; delayMs: number; err: unknown };
const DONE: AttemptOutcome = { kind: 'done' };

/**
 * Runs a delivery job: a fan-out's first attempts (several deliveries) or one delivery's attempt.
 *
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
  private readonly firstAttempts = new Limiter(FIRST_ATTEMPT_CONCURRENCY);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly secrets: SecretBox,
    private readonly sender: WebhookSender,
    private readonly store: DeliveryStore,
    private readonly metrics: MetricsService,
    private readonly queue: WebhookQueue,
    private readonly claims: AttemptClaims,
  ) {}

  async process(job: Job<DeliverWebhookData>, token?: string): Promise<void> {
    if (job.data.deliveryIds) return this.processFirstAttempts(job.data.deliveryIds);
    const { deliveryId } = job.data;
    // A redelivery's job (its id has a suffix) is an explicit request to send again: it never stands back for a running attempt.
    const outcome = await this.attempt(deliveryId, job.id === deliveryId);
    switch (outcome.kind) {
      case 'done':
        return;
      case 'retry':
        throw new DeliveryAttemptFailed(outcome.error, outcome.delayMs);
      case 'final':
        throw new UnrecoverableError(outcome.error);
      case 'deferred':
        // If Redis cannot take the job back either, the error goes to BullMQ; should the job be lost, the sweep finds it.
        try {
          await job.moveToDelayed(Date.now() + outcome.delayMs, token);
        } catch {
          throw outcome.err;
        }
        throw new DelayedError();
    }
  }

  /**
   * A fan-out's first attempts, all at once (at most FIRST_ATTEMPT_CONCURRENCY of them in this process). A delivery
   * that needs another attempt gets a job of its own, due when its retry (or the dependency's recovery) is; should
   * that enqueue fail, the sweep finds the delivery pending in PostgreSQL. Never rejects.
   */
  private async processFirstAttempts(deliveryIds: string[]): Promise<void> {
    const outcomes = await Promise.all(deliveryIds.map((id) => this.firstAttempts.run(() => this.attempt(id, true))));
    const again = outcomes.flatMap((o, i) => (o.kind === 'retry' || o.kind === 'deferred' ? [{ deliveryId: deliveryIds[i], delayMs: o.delayMs }] : []));
    if (!again.length) return;
    await this.queue.enqueueRetries(again).catch((err: unknown) => {
      this.logger.warn({ err: errorMessage(err), deliveries: again.length }, 'Webhook retries left to the delivery sweep: enqueue failed');
    });
  }

  /**
   * One attempt of one delivery, its outcome recorded; never rejects. With `exclusive`, the attempt first claims the
   * delivery (AttemptClaims) and stands back when another attempt holds it; a redelivery's job, an explicit request to
   * send again, does not.
   */
  private async attempt(deliveryId: string, exclusive: boolean): Promise<AttemptOutcome> {
    if (exclusive) {
      try {
        if (!(await this.claims.claim(deliveryId))) return DONE;
      } catch (err) {
        return this.deferred(deliveryId, err);
      }
    }
    try {
      return await this.attemptOnce(deliveryId);
    } catch (err) {
      return this.deferred(deliveryId, err);
    } finally {
      if (exclusive) void this.claims.free(deliveryId);
    }
  }

  private async attemptOnce(deliveryId: string): Promise<AttemptOutcome> {
    let row: DeliveryRow | undefined;
    try {
      row = await this.store.load(deliveryId);
    } catch (err) {
      return this.deferred(deliveryId, err);
    }
    // Subscription deleted, a late duplicate of a job whose delivery is already settled, or a duplicate that came
    // before the scheduled retry (that one, or the sweep, sends it in time).
    if (!row || row.status !== 'pending') return DONE;
    if (row.next_attempt_at && row.next_attempt_at.getTime() > Date.now() + EARLY_TOLERANCE_MS) return DONE;
    if (row.subscription_status !== 'active') {
      try {
        await this.store.settleSkipped(row.id);
      } catch (err) {
        return this.deferred(deliveryId, err);
      }
      return DONE;
    }

    const attemptedAt = new Date();
    let secrets: SigningSecrets;
    try {
      secrets = {
        current: this.secretOf(row.secret_encrypted),
        previous: row.secret_previous_encrypted ? this.secretOf(row.secret_previous_encrypted) : null,
      };
    } catch {
      return this.unreadableSecret(row.id);
    }
    // The stored body encoded once: both signatures hash these bytes and the request sends them.
    const body = Buffer.from(row.body);
    const requestHeaders = {
      'content-type': 'application/json',
      ...signatureHeaders(row.id, body, secrets, Math.floor(attemptedAt.getTime() / 1000)),
      'x-svc-event': row.event_type,
      'x-svc-delivery': row.id,
      'user-agent': USER_AGENT,
    };
    const result = await this.sender.send(row.url, body, requestHeaders);
    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    if (ok) {
      const record: AttemptRecord = { deliveryId: row.id, status: 'delivered', result, attemptedAt, nextAttemptAt: null, requestHeaders };
      await this.store.record(record).catch(() => this.store.recordLater(record));
      this.metrics.recordDelivery('delivered', result.durationMs / 1000);
      return DONE;
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
      return this.deferred(deliveryId, err);
    }
    this.metrics.recordDelivery(result.statusCode === 410 ? 'disabled' : exhausted ? 'failed' : 'retrying', result.durationMs / 1000);
    if (result.statusCode === 410) return { kind: 'final', error: 'Endpoint answered 410 Gone: subscription disabled' };
    if (exhausted) return { kind: 'final', error: `Delivery failed after ${retry} attempts: ${result.error ?? 'failed'}` };
    return { kind: 'retry', error: result.error ?? 'Delivery failed', delayMs };
  }

  /** PostgreSQL (or Redis) failed: the attempt is made again after INFRA_RETRY_MS without counting one. */
  private deferred(deliveryId: string, err: unknown): AttemptOutcome {
    this.logger.warn({ err: errorMessage(err), delivery: deliveryId }, 'Delivery deferred: a dependency failed (no attempt used)');
    return { kind: 'deferred', delayMs: INFRA_RETRY_MS, err };
  }

  /**
   * The secret was sealed under another WEBHOOK_SECRET_KEY: nothing can be signed. Recorded on the delivery (no attempt
   * used), and the delivery waits UNREADABLE_RETRY_MS, in case the operator restores the key or the partner sets a new secret.
   */
  private async unreadableSecret(deliveryId: string): Promise<AttemptOutcome> {
    const retryAt = new Date(Date.now() + UNREADABLE_RETRY_MS);
    this.logger.warn({ delivery: deliveryId }, 'Delivery not sent: its signing secret cannot be decrypted with the current WEBHOOK_SECRET_KEY');
    try {
      await this.store.recordUnreadableSecret(deliveryId, retryAt);
    } catch (err) {
      return this.deferred(deliveryId, err);
    }
    return { kind: 'deferred', delayMs: UNREADABLE_RETRY_MS, err: new Error('unreadable signing secret') };
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
