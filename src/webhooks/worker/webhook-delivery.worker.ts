import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Worker } from 'bullmq';
import Redis from 'ioredis';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { queuePrefix } from '../../redis/producer-queue';
import { DeliverWebhookData, WEBHOOK_BACKOFF, WEBHOOK_QUEUE } from '../webhook-queue';
import { DeliverWebhookJob, DeliveryAttemptFailed } from './deliver-webhook.job';
import { retryDelayMs } from './retry-schedule';

const CONCURRENCY = 64; // deliveries are I/O-bound: mostly waiting on partners' endpoints

/** Runs DeliverWebhookJob for the delivery queue, with the webhook retry schedule as the custom backoff. */
@Injectable()
export class WebhookDeliveryWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(WebhookDeliveryWorker.name);
  private worker?: Worker<DeliverWebhookData>;
  private connection?: Redis;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly job: DeliverWebhookJob,
  ) {}

  onApplicationBootstrap(): void {
    const delays = this.config.webhook.retryDelaysMs;
    this.connection = new Redis(this.config.redisUrl, { maxRetriesPerRequest: null, retryStrategy: (t) => Math.min(t * 200, 2000) });
    this.connection.on('error', () => undefined);
    this.worker = new Worker<DeliverWebhookData>(WEBHOOK_QUEUE, (job, token) => this.job.process(job, token), {
      connection: this.connection,
      prefix: queuePrefix(this.config),
      concurrency: CONCURRENCY,
      settings: {
        backoffStrategy: (attemptsMade, type, err) => {
          if (type !== WEBHOOK_BACKOFF) return 0;
          return err instanceof DeliveryAttemptFailed ? err.delayMs : retryDelayMs(delays, attemptsMade);
        },
      },
    });
    this.worker.on('error', (err) => this.logger.warn({ err: err.message }, 'Webhook worker error'));
  }

  /** Stops taking jobs and lets running attempts finish before the database closes. */
  async onModuleDestroy(): Promise<void> {
    await this.worker?.close();
    this.connection?.disconnect();
  }
}
