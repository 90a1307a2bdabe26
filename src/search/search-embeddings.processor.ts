import { InjectQueue, OnWorkerEvent, Processor } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { Job, Queue } from 'bullmq';
import { SEARCH_EMBEDDINGS_QUEUE } from '../redis/queues';
import { RedisService } from '../redis/redis.service';
import { CatalogueJobProcessor } from './catalogue-job.processor';
import { EMBED_PENDING_JOB, EmbedPendingCoursesJob } from './embed-pending-courses.job';

/**
 * Background embedding of courses with the hosted model (registered only when SEARCH_EMBEDDINGS_URL is set): one
 * BullMQ job enqueued on start, on every catalogue change and every few minutes. Its id is fixed, so a burst of
 * changes enqueues it once; it is retried with exponential back-off.
 */
@Processor(SEARCH_EMBEDDINGS_QUEUE, { autorun: false, concurrency: 1 })
export class SearchEmbeddingsProcessor extends CatalogueJobProcessor {
  protected readonly logger = new Logger(SearchEmbeddingsProcessor.name);
  protected readonly jobName = EMBED_PENDING_JOB;
  protected readonly what = 'course embedding';

  constructor(
    private readonly job: EmbedPendingCoursesJob,
    @InjectQueue(SEARCH_EMBEDDINGS_QUEUE) queue: Queue,
    redis: RedisService,
  ) {
    super(queue, redis);
  }

  process(): Promise<{ embedded: number }> {
    return this.job.process();
  }

  @OnWorkerEvent('failed')
  onFailed(job: Job | undefined, err: Error): void {
    this.logger.warn(`embedding courses failed (attempt ${job?.attemptsMade}): ${err.message}`);
  }
}
