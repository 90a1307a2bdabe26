import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { PeriodicTask } from '../common/periodic-task';
import { IdempotencyRecords } from './idempotency-records';

const INTERVAL_MS = 10 * 60 * 1000;

/** Deletes Idempotency-Key rows past their 24 hours (replays ignore them already), every ten minutes. */
@Injectable()
export class IdempotencyCleanup implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(IdempotencyCleanup.name);
  private readonly task: PeriodicTask;

  constructor(private readonly records: IdempotencyRecords) {
    this.task = new PeriodicTask({ name: IdempotencyCleanup.name, intervalMs: INTERVAL_MS, unref: true }, () => this.sweep());
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.task.stop();
  }

  private async sweep(): Promise<void> {
    const deleted = await this.records.deleteExpired();
    if (deleted) this.logger.log({ deleted }, 'Expired idempotency keys deleted');
  }
}
