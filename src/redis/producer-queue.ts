import { JobsOptions, Queue } from 'bullmq';
import Redis from 'ioredis';
import { AppConfig } from '../config/config';
import { queueOptions } from './queue-options';

/** BullMQ prefix of this deployment (or test run), so queues of different runs sharing a Redis never mix. */
export function queuePrefix(config: AppConfig): string {
  return `${config.redisPrefix}:bull`;
}

/** An enqueue gives up after this when Redis does not answer; the caller's sweep finds the work in PostgreSQL. */
const ENQUEUE_TIMEOUT_MS = 2000;

export interface ProducerJob<T> {
  name: string;
  data: T;
  opts: JobsOptions;
}

/**
 * The producer side every queue of ours shares (API and worker processes): a Redis connection of its own that fails
 * fast instead of queueing commands while Redis is away, and bulk adds that reject within ENQUEUE_TIMEOUT_MS. The
 * queues only carry ids of work PostgreSQL holds, so a failed enqueue loses nothing: a sweep enqueues it again.
 */
export class ProducerQueue<T> {
  readonly queue: Queue<T>;
  private readonly connection: Redis;

  constructor(config: AppConfig, name: string) {
    this.connection = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 2000, retryStrategy: (t) => Math.min(t * 200, 2000) });
    this.connection.on('error', () => undefined); // each enqueue reports its own failure; nothing to do per event
    this.queue = new Queue<T>(name, queueOptions(this.connection, queuePrefix(config)));
    this.queue.on('error', () => undefined);
  }

  /** Adds the jobs in one round trip; `what` names them in the time-out error. */
  async addBulk(jobs: Array<ProducerJob<T>>, what: string): Promise<void> {
    if (!jobs.length) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Enqueuing ${what} timed out (Redis unreachable?)`)), ENQUEUE_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.queue.addBulk(jobs as Parameters<Queue<T>['addBulk']>[0]), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.queue.close().catch(() => undefined);
    this.connection.disconnect();
  }
}
