import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { PeriodicTask } from '../../common/periodic-task';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { JobQueue } from '../job-queue';
import { JobsRepository } from '../jobs.repository';

const BATCH = 500;

/**
 * PostgreSQL is the record of jobs, Redis only their queue: every JOBS_SWEEP_INTERVAL_MS (and at start) the sweep
 * enqueues again each unfinished job idle for that long. The queue's job id is the job's id, so a job whose entry
 * still exists (waiting, running, retrying) is left alone, and one whose entry vanished (Redis lost its data, the
 * enqueue after the commit failed, every attempt failed) runs again from its first row without an outcome.
 */
@Injectable()
export class JobsSweep implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(JobsSweep.name);
  private readonly task: PeriodicTask;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repo: JobsRepository,
    private readonly queue: JobQueue,
  ) {
    this.task = new PeriodicTask({ name: JobsSweep.name, intervalMs: config.jobs.sweepIntervalMs, firstDelayMs: 0 }, () => this.pass());
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.task.stop();
  }

  /** One sweep; returns how many jobs it enqueued (again). */
  async sweep(): Promise<number> {
    const ids = await this.repo.idleUnfinished(this.config.jobs.sweepIntervalMs, BATCH);
    await this.queue.enqueue(await this.repo.priorities(ids));
    return ids.length;
  }

  private async pass(): Promise<void> {
    const n = await this.sweep();
    if (n) this.logger.log({ jobs: n }, 'Jobs sweep enqueued unfinished jobs');
  }
}
