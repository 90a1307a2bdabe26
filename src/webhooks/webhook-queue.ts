import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import { Queue } from 'bullmq';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { MetricsService } from '../metrics/metrics.service';
import { addBulkWithin } from '../redis/producer-queue';
import { WEBHOOK_QUEUE } from '../redis/queues';

export const WEBHOOK_BACKOFF = 'webhook';

export interface DeliverWebhookData {
  deliveryId: string;
}

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
    await addBulkWithin(this.queue, jobs, 'webhook deliveries');
  }
}
