import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { CoursesService } from '../courses.service';

const INTERVAL_MS = 1000;

/**
 * Every second, folds the enrolment counter shards into `courses.enrolled`, so the popular sort (an index on that
 * column) stays within about a second of the exact counts the API shows. One short statement; a failure is retried
 * at the next tick and loses nothing (the shards keep what was not folded).
 */
@Injectable()
export class EnrollmentCountFolder implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(EnrollmentCountFolder.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(private readonly courses: CoursesService) {}

  onApplicationBootstrap(): void {
    this.schedule();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick();
    }, INTERVAL_MS);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      await this.courses.foldEnrollmentCounts();
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'Folding enrolment counts failed; retrying');
    }
    this.schedule();
  }
}
