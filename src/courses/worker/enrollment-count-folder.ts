import { Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { PeriodicTask } from '../../common/periodic-task';
import { CoursesService } from '../courses.service';

const INTERVAL_MS = 1000;

/**
 * Every second, folds the enrolment counter shards into `courses.enrolled`, so the popular sort (an index on that
 * column) stays within about a second of the exact counts the API shows. One short statement; a failure is retried
 * at the next tick and loses nothing (the shards keep what was not folded).
 */
@Injectable()
export class EnrollmentCountFolder implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly task: PeriodicTask;

  constructor(courses: CoursesService) {
    this.task = new PeriodicTask(
      { name: EnrollmentCountFolder.name, intervalMs: INTERVAL_MS, unref: true },
      async () => void (await courses.foldEnrollmentCounts()),
    );
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.task.stop();
  }
}
