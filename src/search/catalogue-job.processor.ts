import { Queue } from 'bullmq';
import { errorMessage } from '../common/error-message';
import { CATALOGUE_CHANGED } from '../redis/channels';
import { QueueProcessor } from '../redis/queue-processor';
import { RedisService } from '../redis/redis.service';

// Catches changes written without a notification (e.g. direct SQL).
const SWEEP_EVERY_MS = 5 * 60_000;

/**
 * A processor of one job that follows the catalogue (search's background embedding and encoding): enqueued on start,
 * on every catalogue change and every few minutes, with a fixed id so that a burst of changes runs it once, and
 * retried with exponential back-off.
 */
export abstract class CatalogueJobProcessor extends QueueProcessor {
  /** The job's name and fixed id, and what it does in log lines ("course encoding"). */
  protected abstract readonly jobName: string;
  protected abstract readonly what: string;

  constructor(
    protected readonly queue: Queue,
    private readonly redis: RedisService,
  ) {
    super();
    this.queue.on('error', () => undefined); // each add reports its own failure
  }

  async onApplicationBootstrap(): Promise<void> {
    this.startWorker();
    await this.queue
      .upsertJobScheduler(`${this.queue.name}-sweep`, { every: SWEEP_EVERY_MS }, { name: this.jobName })
      .catch((e: unknown) => this.logger.warn(`could not schedule ${this.what}: ${errorMessage(e)}`));
    this.redis.subscribe(CATALOGUE_CHANGED, () => void this.enqueue());
    await this.enqueue();
  }

  /** Asks for a run; harmless while one is already waiting. */
  async enqueue(): Promise<void> {
    await this.queue
      .add(this.jobName, {}, { jobId: this.jobName, attempts: 5, backoff: { type: 'exponential', delay: 2000 }, removeOnComplete: true, removeOnFail: true })
      .catch((e: unknown) => this.logger.warn(`could not enqueue ${this.what}: ${errorMessage(e)}`));
  }
}
