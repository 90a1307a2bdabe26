import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { ProducerQueue } from '../redis/producer-queue';

export const JOBS_QUEUE = 'jobs';

export interface RunJobData {
  jobId: string;
}

/** BullMQ's largest priority (lower runs first; 0 would mean "no priority", ahead of every prioritised job). */
const MAX_PRIORITY = 2_097_152;

/** A queue priority from a partner's outstanding rows: fewer rows waiting, sooner. */
export function priorityOf(outstandingRows: number): number {
  return Math.min(MAX_PRIORITY, Math.max(1, outstandingRows));
}

/** Attempts of one queue entry; the sweep enqueues a job again if all of them fail (e.g. a long database outage). */
export const JOB_ATTEMPTS = 8;

/**
 * Producer side of the jobs queue (API and worker). The queue entry only says "run job X": PostgreSQL holds the job,
 * and its id is the BullMQ job id, so enqueuing a job twice (API and sweep, two sweeps) is harmless.
 */
@Injectable()
export class JobQueue implements OnApplicationShutdown {
  private readonly producer: ProducerQueue<RunJobData>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.producer = new ProducerQueue<RunJobData>(config, JOBS_QUEUE);
  }

  /** Enqueues jobs with their priorities (JobsRepository.priorities). Rejects within two seconds when Redis is unreachable. */
  async enqueue(priorities: Map<string, number>): Promise<void> {
    const jobs = [...priorities].map(([jobId, outstanding]) => ({
      name: 'run',
      data: { jobId },
      opts: {
        jobId,
        priority: priorityOf(outstanding),
        attempts: JOB_ATTEMPTS,
        backoff: { type: 'exponential', delay: 1000 },
        removeOnComplete: true,
        removeOnFail: true,
      },
    }));
    await this.producer.addBulk(jobs, 'jobs');
  }

  async onApplicationShutdown(): Promise<void> {
    await this.producer.close();
  }
}
