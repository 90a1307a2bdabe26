import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { Queue } from 'bullmq';
import { addBulkWithin } from '../redis/producer-queue';
import { JOBS_QUEUE } from '../redis/queues';

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
export class JobQueue {
  constructor(@InjectQueue(JOBS_QUEUE) private readonly queue: Queue<RunJobData>) {
    this.queue.on('error', () => undefined); // each enqueue reports its own failure; nothing to do per event
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
    await addBulkWithin(this.queue, jobs, 'jobs');
  }
}
