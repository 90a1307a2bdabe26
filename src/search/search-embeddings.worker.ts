import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Queue, Worker } from 'bullmq';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { queueOptions } from '../redis/queue-options';
import { CATALOGUE_CHANGED } from '../redis/channels';
import { RedisService } from '../redis/redis.service';
import { EMBED_PENDING_JOB, EmbedPendingCoursesJob, SEARCH_EMBEDDINGS_QUEUE } from './embed-pending-courses.job';
import { EmbeddingsClient } from './embeddings.client';

// Catches changes written without a notification (e.g. direct SQL).
const SWEEP_EVERY_MS = 5 * 60_000;

/**
 * Background embedding of courses with the hosted model (only when SEARCH_EMBEDDINGS_URL is set): one BullMQ job
 * enqueued on start, on every catalogue change and every few minutes. Its id is fixed, so a burst of changes
 * enqueues it once; it is retried with exponential back-off.
 */
@Injectable()
export class SearchEmbeddingsWorker implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(SearchEmbeddingsWorker.name);
  private queue?: Queue;
  private worker?: Worker;
  private connection?: Redis;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly db: DataSource,
    private readonly redis: RedisService,
  ) {}

  async onModuleInit(): Promise<void> {
    const { embeddingsUrl, embeddingsModel, embeddingsApiKey } = this.config.search;
    if (!embeddingsUrl) return;
    const job = new EmbedPendingCoursesJob(this.db, new EmbeddingsClient({ url: embeddingsUrl, model: embeddingsModel, apiKey: embeddingsApiKey }));
    this.connection = new Redis(this.config.redisUrl, { maxRetriesPerRequest: null });
    this.connection.on('error', () => undefined);
    const options = queueOptions(this.connection, `${this.config.redisPrefix}:bull`);
    this.queue = new Queue(SEARCH_EMBEDDINGS_QUEUE, options);
    this.worker = new Worker(SEARCH_EMBEDDINGS_QUEUE, () => job.process(), { ...options, concurrency: 1 });
    this.worker.on('failed', (j, e) => this.logger.warn(`embedding courses failed (attempt ${j?.attemptsMade}): ${e.message}`));
    await this.queue.upsertJobScheduler('search-embeddings-sweep', { every: SWEEP_EVERY_MS }, { name: EMBED_PENDING_JOB });
    this.redis.subscribe(CATALOGUE_CHANGED, () => void this.enqueue());
    await this.enqueue();
  }

  /** Asks for a run; harmless while one is already waiting. */
  async enqueue(): Promise<void> {
    await this.queue
      ?.add(
        EMBED_PENDING_JOB,
        {},
        { jobId: EMBED_PENDING_JOB, attempts: 5, backoff: { type: 'exponential', delay: 2000 }, removeOnComplete: true, removeOnFail: true },
      )
      .catch((e: unknown) => this.logger.warn(`could not enqueue course embedding: ${(e as Error).message}`));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.worker?.close();
    await this.queue?.close();
    await this.connection?.quit().catch(() => undefined);
  }
}
