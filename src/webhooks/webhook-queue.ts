import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import { JobsOptions, Queue } from 'bullmq';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { MetricsService } from '../metrics/metrics.service';
import { addBulkWithin } from '../redis/producer-queue';
import { WEBHOOK_QUEUE } from '../redis/queues';

export const WEBHOOK_BACKOFF = 'webhook';

/** A job of one delivery (a retry, the sweep's, the relay's, a redelivery) or of a fan-out's first attempts. */
export type DeliverWebhookData = { deliveryId: string; deliveryIds?: undefined } | { deliveryIds: string[]; deliveryId?: undefined };

/** The job name of a fan-out's first attempts, several deliveries in one job. */
export const FIRST_ATTEMPTS_JOB = 'deliver-first';

/**
 * Deliveries per first-attempts job. Each BullMQ job costs the worker and Redis several scripts (add, fetch, finish)
 * whatever it carries; a fan-out's deliveries share them. Small enough that one job's attempts, all running at once,
 * stay a modest burst for the receivers.
 */
export const FIRST_ATTEMPTS_PER_JOB = 20;

/** Producer side of the delivery queue, used by fan-out and redelivery (API and worker processes). */
@Injectable()
export class WebhookQueue {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectQueue(WEBHOOK_QUEUE) private readonly queue: Queue<DeliverWebhookData>,
    metrics: MetricsService,
  ) {
    this.queue.on('error', () => undefined); // each enqueue reports its own failure; nothing to do per event
    metrics.gauge('webhook_queue_jobs', 'Jobs in the webhook delivery queue by state.', ['state'], async (set) => {
      const counts = await this.queue.getJobCounts('waiting', 'active', 'delayed', 'failed');
      for (const [state, n] of Object.entries(counts)) set({ state }, n);
    });
  }

  /**
   * Enqueues one job per delivery with jobId = delivery id, so enqueuing twice is harmless.
   * Rejects within two seconds when Redis is unreachable, leaving the event to the relay.
   */
  async enqueue(deliveryIds: string[], jobIdSuffix = ''): Promise<void> {
    await addBulkWithin(
      this.queue,
      deliveryIds.map((deliveryId) => this.deliveryJob(deliveryId, jobIdSuffix)),
      'webhook deliveries',
    );
  }

  /**
   * Deliveries' next attempts, each after its `delayMs`, as jobs of their own (first attempts that failed in a shared
   * job). Like enqueue, harmless for a delivery that has a live job already.
   */
  async enqueueRetries(retries: Array<{ deliveryId: string; delayMs: number }>): Promise<void> {
    const jobs = retries.map(({ deliveryId, delayMs }) => {
      const job = this.deliveryJob(deliveryId, '');
      return { ...job, opts: { ...job.opts, delay: Math.max(0, delayMs) } };
    });
    await addBulkWithin(this.queue, jobs, 'webhook retries');
  }

  /**
   * The first attempts of freshly fanned-out deliveries, FIRST_ATTEMPTS_PER_JOB to a job. These jobs carry no
   * delivery's id: a delivery that needs another attempt gets a job of its own then (enqueueRetries), and one the sweep or
   * the relay enqueues meanwhile gets its own job beside this one; an attempt claims its delivery first, so only one of
   * them sends it (the worker's AttemptClaims), and the later one finds it settled.
   */
  async enqueueFirstAttempts(deliveryIds: string[]): Promise<void> {
    const jobs = [];
    for (let i = 0; i < deliveryIds.length; i += FIRST_ATTEMPTS_PER_JOB) {
      jobs.push({
        name: FIRST_ATTEMPTS_JOB,
        data: { deliveryIds: deliveryIds.slice(i, i + FIRST_ATTEMPTS_PER_JOB) },
        // One try: a job that cannot run its attempts leaves them to the sweep (PostgreSQL holds every delivery).
        opts: { attempts: 1, removeOnComplete: true, removeOnFail: true },
      });
    }
    await addBulkWithin(this.queue, jobs, 'webhook deliveries');
  }

  private deliveryJob(deliveryId: string, jobIdSuffix: string) {
    const delays = this.config.webhook.retryDelaysMs;
    return {
      name: 'deliver',
      data: { deliveryId } as DeliverWebhookData,
      opts: {
        jobId: deliveryId + jobIdSuffix,
        attempts: delays.length + 1,
        backoff: { type: WEBHOOK_BACKOFF },
        // Finished jobs go at once: BullMQ refuses to add a job id it still keeps (completed or failed), and the sweep
        // must be able to re-enqueue a delivery that is due again. A live job (waiting, delayed, running) keeps the id
        // taken, so a delivery never has two jobs of its own. The delivery log in PostgreSQL is the history.
        removeOnComplete: true,
        removeOnFail: true,
      } as JobsOptions,
    };
  }
}
