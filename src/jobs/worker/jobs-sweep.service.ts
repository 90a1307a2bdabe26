import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { errorMessage } from '../../common/error-message';
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
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repo: JobsRepository,
    private readonly queue: JobQueue,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule(0);
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One sweep; returns how many jobs it enqueued (again). */
  async sweep(): Promise<number> {
    const ids = await this.repo.idleUnfinished(this.config.jobs.sweepIntervalMs, BATCH);
    await this.queue.enqueue(await this.repo.priorities(ids));
    return ids.length;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick();
    }, delayMs);
  }

  private async tick(): Promise<void> {
    try {
      const n = await this.sweep();
      if (n) this.logger.log({ jobs: n }, 'Jobs sweep enqueued unfinished jobs');
    } catch (err) {
      this.logger.warn({ err: errorMessage(err) }, 'Jobs sweep failed; retrying');
    }
    this.schedule(this.config.jobs.sweepIntervalMs);
  }
}
