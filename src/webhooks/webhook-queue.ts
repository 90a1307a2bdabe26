import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { MetricsService } from '../metrics/metrics.service';
import { EVENTS_MAX_LEN, queueOptions } from '../redis/queue-options';

export const WEBHOOK_QUEUE = 'webhook-deliveries';
export const WEBHOOK_BACKOFF = 'webhook';

export interface DeliverWebhookData {
  deliveryId: string;
}

/** BullMQ prefix of this deployment (or test run), so queues of different runs sharing a Redis never mix. */
export function queuePrefix(config: AppConfig): string {
  return `${config.redisPrefix}:bull`;
}

const ENQUEUE_TIMEOUT_MS = 2000;
/**
 * Approximate cap of the queue's events stream (BullMQ's default is 10,000). Nothing here reads that stream (the
 * delivery log is in PostgreSQL), so a short one keeps Redis memory small; with finished jobs removed at once, the
 * queue's Redis footprint is its live jobs plus this.
 */
/** The events stream's bound (shared by every queue: src/redis/queue-options.ts). */
export const WEBHOOK_EVENTS_MAX_LEN = EVENTS_MAX_LEN;

/** Producer side of the delivery queue, used by fan-out and redelivery (API and worker processes). */
@Injectable()
export class WebhookQueue implements OnApplicationShutdown {
  private readonly connection: Redis;
  private readonly queue: Queue<DeliverWebhookData>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    metrics: MetricsService,
  ) {
    this.connection = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 2000, retryStrategy: (t) => Math.min(t * 200, 2000) });
    this.connection.on('error', () => undefined); // an enqueue fails (and the relay takes over); nothing to do per error event
    this.queue = new Queue<DeliverWebhookData>(WEBHOOK_QUEUE, queueOptions(this.connection, queuePrefix(config)));
    this.queue.on('error', () => undefined);
    metrics.gauge('webhook_queue_jobs', 'Jobs in the webhook delivery queue by state.', ['state'], async (set) => {
      const counts = await this.queue.getJobCounts('waiting', 'active', 'delayed', 'failed');
      for (const [state, n] of Object.entries(counts)) set({ state }, n);
    });
  }

  /**
   * Enqueues one job per delivery with jobId = delivery id, so enqueuing twice is harmless.
   * Rejects within ENQUEUE_TIMEOUT_MS when Redis is unreachable, leaving the event to the relay.
   */
  async enqueue(deliveryIds: string[], jobIdSuffix = ''): Promise<void> {
    if (!deliveryIds.length) return;
    const delays = this.config.webhook.retryDelaysMs;
    const jobs = deliveryIds.map((deliveryId) => ({
      name: 'deliver',
      data: { deliveryId },
      opts: {
        jobId: deliveryId + jobIdSuffix,
        attempts: delays.length + 1,
        backoff: { type: WEBHOOK_BACKOFF },
        // Finished jobs go at once: BullMQ refuses to add a job id it still keeps (completed or failed), and the sweep
        // must be able to re-enqueue a delivery that is due again. A live job (waiting, delayed, running) keeps the id
        // taken, so a delivery never has two. The delivery log in PostgreSQL is the history.
        removeOnComplete: true,
        removeOnFail: true,
      },
    }));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('Enqueuing webhook deliveries timed out (Redis unreachable?)')), ENQUEUE_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.queue.addBulk(jobs), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue.close().catch(() => undefined);
    this.connection.disconnect();
  }
}
