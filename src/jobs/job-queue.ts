import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { queueOptions } from '../redis/queue-options';

export const JOBS_QUEUE = 'jobs';

export interface RunJobData {
  jobId: string;
}

/** Attempts of one queue entry; the sweep enqueues a job again if all of them fail (e.g. a long database outage). */
export const JOB_ATTEMPTS = 8;
const ENQUEUE_TIMEOUT_MS = 2000;

/**
 * Producer side of the jobs queue (API and worker). The queue entry only says "run job X": PostgreSQL holds the job,
 * and its id is the BullMQ job id, so enqueuing a job twice (API and sweep, two sweeps) is harmless.
 */
@Injectable()
export class JobQueue implements OnApplicationShutdown {
  private readonly connection: Redis;
  private readonly queue: Queue<RunJobData>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.connection = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 2000, retryStrategy: (t) => Math.min(t * 200, 2000) });
    this.connection.on('error', () => undefined); // an enqueue fails and the sweep takes over
    this.queue = new Queue<RunJobData>(JOBS_QUEUE, queueOptions(this.connection, jobsQueuePrefix(config)));
    this.queue.on('error', () => undefined);
  }

  /** Rejects within ENQUEUE_TIMEOUT_MS when Redis is unreachable. */
  async enqueue(jobIds: string[]): Promise<void> {
    if (!jobIds.length) return;
    const jobs = jobIds.map((jobId) => ({
      name: 'run',
      data: { jobId },
      opts: { jobId, attempts: JOB_ATTEMPTS, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: true, removeOnFail: true },
    }));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('Enqueuing jobs timed out (Redis unreachable?)')), ENQUEUE_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.queue.addBulk(jobs), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue.close().catch(() => undefined);
    this.connection.disconnect();
  }
}

/** BullMQ prefix of this deployment (or test run), as for the other queues. */
export function jobsQueuePrefix(config: AppConfig): string {
  return `${config.redisPrefix}:bull`;
}
