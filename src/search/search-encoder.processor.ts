import { InjectQueue, OnWorkerEvent, Processor } from '@nestjs/bullmq';
import { Inject, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Job, Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { SEARCH_ENCODER_QUEUE } from '../redis/queues';
import { RedisService } from '../redis/redis.service';
import { CatalogueJobProcessor } from './catalogue-job.processor';
import { allCourseTexts } from './encoder/course-texts';
import { encodePendingCourses } from './encoder/encode-courses';
import { EncoderPool } from './encoder/encoder-pool';
import { SentenceVectorStore } from './encoder/vector-store';
import { documentsStamp } from './search.store';

export const ENCODE_COURSES_JOB = 'encode-pending-courses';

/**
 * Background encoding of course texts with the sentence encoder (registered only when SEARCH_SENTENCE_ENCODER is on):
 * one BullMQ job, enqueued on start, on every catalogue change and every few minutes, with a fixed id so a burst of
 * changes runs it once. It encodes only texts with no stored vector, on SEARCH_ENCODER_THREADS worker threads that
 * end with the run, and runs again when the catalogue changed while it worked.
 */
@Processor(SEARCH_ENCODER_QUEUE, { autorun: false, concurrency: 1, lockDuration: 60_000 })
export class SearchEncoderProcessor extends CatalogueJobProcessor {
  protected readonly logger = new Logger(SearchEncoderProcessor.name);
  protected readonly jobName = ENCODE_COURSES_JOB;
  protected readonly what = 'course encoding';
  private pool?: EncoderPool;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly db: DataSource,
    @InjectQueue(SEARCH_ENCODER_QUEUE) queue: Queue,
    private readonly store: SentenceVectorStore,
    redis: RedisService,
  ) {
    super(queue, redis);
  }

  process(): Promise<{ encoded: number }> {
    return this.run();
  }

  /** Encodes what is pending until the catalogue stops changing under the run; the threads end with it. */
  async run(): Promise<{ encoded: number }> {
    this.pool = new EncoderPool(this.config.search.encoderThreads);
    let encoded = 0;
    try {
      for (;;) {
        const before = await this.catalogueStamp();
        const run = await encodePendingCourses(allCourseTexts(this.db), this.store, this.pool);
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

  @OnWorkerEvent('failed')
  onFailed(job: Job | undefined, err: Error): void {
    this.logger.warn(`encoding courses failed (attempt ${job?.attemptsMade}): ${err.message}`);
  }

  /** The encoder's threads end first, so a run in progress fails fast and its job is retried by the next worker. */
  async onModuleDestroy(): Promise<void> {
    await this.pool?.close();
    await super.onModuleDestroy();
  }
}
