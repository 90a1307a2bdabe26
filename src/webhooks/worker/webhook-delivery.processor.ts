import { OnWorkerEvent, Processor } from '@nestjs/bullmq';
import { Inject, Logger } from '@nestjs/common';
import { Job } from 'bullmq';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { QueueProcessor } from '../../redis/queue-processor';
import { WEBHOOK_QUEUE } from '../../redis/queues';
import { DeliverWebhookData, WEBHOOK_BACKOFF } from '../webhook-queue';
import { DeliverWebhookJob, DeliveryAttemptFailed } from './deliver-webhook.job';
import { retryDelayMs } from './retry-schedule';

const CONCURRENCY = 64; // deliveries are I/O-bound: mostly waiting on partners' endpoints

/** Runs DeliverWebhookJob for the delivery queue, with the webhook retry schedule as the custom backoff. */
@Processor(WEBHOOK_QUEUE, { autorun: false, concurrency: CONCURRENCY })
export class WebhookDeliveryProcessor extends QueueProcessor {
  protected readonly logger = new Logger(WebhookDeliveryProcessor.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly job: DeliverWebhookJob,
  ) {
    super();
  }

  /**
   * The retry schedule is configuration (WEBHOOK_RETRY_DELAYS_MS), which a class decorator cannot read, so it is set
   * on the worker before it takes its first job; BullMQ reads the strategy each time a job fails.
   */
  onApplicationBootstrap(): void {
    const delays = this.config.webhook.retryDelaysMs;
    this.worker.opts.settings = {
      ...this.worker.opts.settings,
      backoffStrategy: (attemptsMade: number, type?: string, err?: Error) => {
        if (type !== WEBHOOK_BACKOFF) return 0;
        return err instanceof DeliveryAttemptFailed ? err.delayMs : retryDelayMs(delays, attemptsMade);
      },
    };
    this.startWorker();
  }

  process(job: Job<DeliverWebhookData>, token?: string): Promise<void> {
    return this.job.process(job, token);
  }

  @OnWorkerEvent('error')
  onError(err: Error): void {
    this.logger.warn({ err: err.message }, 'Webhook worker error');
  }
}
