import { OnWorkerEvent, Processor } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { Job as QueueJob, WaitingError } from 'bullmq';
import { QueueProcessor } from '../../redis/queue-processor';
import { JOBS_QUEUE } from '../../redis/queues';
import { JOB_ATTEMPTS, priorityOf, RunJobData } from '../job-queue';
import { JobsRepository } from '../jobs.repository';
import { BulkEnrollmentJob } from './bulk-enrollment.job';

// Two jobs side by side, each with 8 lanes of rows (bulk-enrollment.job.ts); a lane uses one or two pool connections
// at a time, so two large jobs can fill the pool (DATABASE_POOL_SIZE) and wait on it in turn.
const CONCURRENCY = 2;
// A killed worker's job is taken over once its lock expires (BullMQ's stalled-job check), within about 20 s.
const LOCK_MS = 15_000;
const STALLED_CHECK_MS = 5_000;
// A job runs rows for this long, then goes back to the queue behind whatever has a better priority (a partner with
// fewer rows waiting), so another partner's small job starts within about one slice whatever this partner queued.
const SLICE_MS = 500;

/** Runs the jobs queue. On shutdown a running job stops between rows and goes back to the queue. */
@Processor(JOBS_QUEUE, { autorun: false, concurrency: CONCURRENCY, lockDuration: LOCK_MS, stalledInterval: STALLED_CHECK_MS })
export class JobsProcessor extends QueueProcessor {
  protected readonly logger = new Logger(JobsProcessor.name);
  private stopping = false;

  constructor(
    private readonly bulkEnrollment: BulkEnrollmentJob,
    private readonly repo: JobsRepository,
  ) {
    super();
  }

  async process(job: QueueJob<RunJobData>, token?: string): Promise<void> {
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? JOB_ATTEMPTS);
    const sliceEnd = Date.now() + SLICE_MS;
    const end = await this.bulkEnrollment.run(job.data.jobId, lastAttempt, () => this.stopping || Date.now() >= sliceEnd);
    if (end === 'interrupted') {
      // Back to the queue without using up an attempt, with the priority its partner's backlog now earns; this worker
      // (or another, or this one restarted) carries on with whatever comes first.
      const priority = this.stopping ? null : priorityOf((await this.repo.priorities([job.data.jobId])).get(job.data.jobId) ?? 1);
      await job.moveToWait(token);
      // Set once the entry waits: re-adding it with its new priority also wakes idle workers (a plain move back does
      // not), so the next slice starts at once rather than after a worker's idle wait.
      if (priority !== null) await job.changePriority({ priority });
      throw new WaitingError();
    }
  }

  @OnWorkerEvent('error')
  onError(err: Error): void {
    this.logger.warn({ err: err.message }, 'Jobs worker error');
  }

  @OnWorkerEvent('failed')
  onFailed(job: QueueJob<RunJobData> | undefined, err: Error): void {
    this.logger.warn({ err: err.message, jobId: job?.id, attempt: job?.attemptsMade }, 'Job run failed; retried');
  }

  /** Running jobs stop between rows and go back to the queue; then the worker closes. */
  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    await super.onModuleDestroy();
  }
}
