import { InjectQueue, OnWorkerEvent, Processor } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { Job, Queue } from 'bullmq';
import { errorMessage } from '../common/error-message';
import { CATALOGUE_CHANGED } from '../redis/channels';
import { QueueProcessor } from '../redis/queue-processor';
import { SEARCH_EMBEDDINGS_QUEUE } from '../redis/queues';
import { RedisService } from '../redis/redis.service';
import { EMBED_PENDING_JOB, EmbedPendingCoursesJob } from './embed-pending-courses.job';

// Catches changes written without a notification (e.g. direct SQL).
const SWEEP_EVERY_MS = 5 * 60_000;

/**
 * Background embedding of courses with the hosted model (registered only when SEARCH_EMBEDDINGS_URL is set): one
 * BullMQ job enqueued on start, on every catalogue change and every few minutes. Its id is fixed, so a burst of
 * changes enqueues it once; it is retried with exponential back-off.
 */
@Processor(SEARCH_EMBEDDINGS_QUEUE, { autorun: false, concurrency: 1 })
export class SearchEmbeddingsProcessor extends QueueProcessor {
  protected readonly logger = new Logger(SearchEmbeddingsProcessor.name);

  constructor(
    private readonly job: EmbedPendingCoursesJob,
    @InjectQueue(SEARCH_EMBEDDINGS_QUEUE) private readonly queue: Queue,
    private readonly redis: RedisService,
  ) {
    super();
    this.queue.on('error', () => undefined); // each add reports its own failure
  }

  async onApplicationBootstrap(): Promise<void> {
    this.startWorker();
    await this.queue
      .upsertJobScheduler('search-embeddings-sweep', { every: SWEEP_EVERY_MS }, { name: EMBED_PENDING_JOB })
      .catch((e: unknown) => this.logger.warn(`could not schedule course embedding: ${errorMessage(e)}`));
    this.redis.subscribe(CATALOGUE_CHANGED, () => void this.enqueue());
    await this.enqueue();
  }

  /** Asks for a run; harmless while one is already waiting. */
  async enqueue(): Promise<void> {
    await this.queue
      .add(
        EMBED_PENDING_JOB,
        {},
        { jobId: EMBED_PENDING_JOB, attempts: 5, backoff: { type: 'exponential', delay: 2000 }, removeOnComplete: true, removeOnFail: true },
      )
      .catch((e: unknown) => this.logger.warn(`could not enqueue course embedding: ${errorMessage(e)}`));
  }

  process(): Promise<{ embedded: number }> {
    return this.job.process();
  }

  @OnWorkerEvent('failed')
  onFailed(job: Job | undefined, err: Error): void {
    this.logger.warn(`embedding courses failed (attempt ${job?.attemptsMade}): ${err.message}`);
  }
}
