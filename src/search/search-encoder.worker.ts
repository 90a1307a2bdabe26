import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Queue, Worker } from 'bullmq';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { queueOptions } from '../redis/queue-options';
import { RedisService } from '../redis/redis.service';
import { allCourseTexts } from './encoder/course-texts';
import { encodePendingCourses } from './encoder/encode-courses';
import { EncoderPool } from './encoder/encoder-pool';
import { SENTENCE_MODEL } from './encoder/sentence-model';
import { SentenceVectorStore } from './encoder/vector-store';
import { documentsStamp } from './search.store';
import { CATALOGUE_CHANGED } from '../redis/channels';

export const SEARCH_ENCODER_QUEUE = 'search-encoder';
export const ENCODE_COURSES_JOB = 'encode-pending-courses';
// Catches changes written without a notification (e.g. direct SQL).
const SWEEP_EVERY_MS = 5 * 60_000;

/**
 * Background encoding of course texts with the sentence encoder: one BullMQ job, enqueued on start, on every
 * catalogue change and every few minutes, with a fixed id so a burst of changes runs it once. It encodes only texts
 * with no stored vector, on SEARCH_ENCODER_THREADS worker threads that end with the run, and runs again when the
 * catalogue changed while it worked.
 */
@Injectable()
export class SearchEncoderWorker implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(SearchEncoderWorker.name);
  private queue?: Queue;
  private worker?: Worker;
  private connection?: Redis;
  private pool?: EncoderPool;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly db: DataSource,
    private readonly redis: RedisService,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.config.search.sentenceEncoder) return;
    this.connection = new Redis(this.config.redisUrl, { maxRetriesPerRequest: null });
    this.connection.on('error', () => undefined);
    const options = queueOptions(this.connection, `${this.config.redisPrefix}:bull`);
    this.queue = new Queue(SEARCH_ENCODER_QUEUE, options);
    this.worker = new Worker(SEARCH_ENCODER_QUEUE, () => this.run(), { ...options, concurrency: 1, lockDuration: 60_000 });
    this.worker.on('failed', (j, e) => this.logger.warn(`encoding courses failed (attempt ${j?.attemptsMade}): ${e.message}`));
    await this.queue.upsertJobScheduler('search-encoder-sweep', { every: SWEEP_EVERY_MS }, { name: ENCODE_COURSES_JOB });
    this.redis.subscribe(CATALOGUE_CHANGED, () => void this.enqueue());
    await this.enqueue();
  }

  /** Asks for a run; harmless while one is already waiting. */
  async enqueue(): Promise<void> {
    await this.queue
      ?.add(
        ENCODE_COURSES_JOB,
        {},
        { jobId: ENCODE_COURSES_JOB, attempts: 5, backoff: { type: 'exponential', delay: 2000 }, removeOnComplete: true, removeOnFail: true },
      )
      .catch((e: unknown) => this.logger.warn(`could not enqueue course encoding: ${(e as Error).message}`));
  }

  /** Encodes what is pending until the catalogue stops changing under the run; the threads end with it. */
  async run(): Promise<{ encoded: number }> {
    const store = new SentenceVectorStore(this.db, SENTENCE_MODEL);
    this.pool = new EncoderPool(this.config.search.encoderThreads);
    let encoded = 0;
    try {
      for (;;) {
        const before = await this.catalogueStamp();
        const run = await encodePendingCourses(allCourseTexts(this.db), store, this.pool);
        encoded += run.encoded;
        if (run.encoded) this.logger.log(`sentence encoder: ${run.encoded} course texts encoded in ${run.ms} ms on ${this.pool.threads} threads`);
        if ((await this.catalogueStamp()) === before) return { encoded };
      }
    } finally {
      await this.pool.close();
    }
  }

  private catalogueStamp(): Promise<string> {
    return documentsStamp(this.db);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool?.close();
    await this.worker?.close();
    await this.queue?.close();
    await this.connection?.quit().catch(() => undefined);
  }
}
