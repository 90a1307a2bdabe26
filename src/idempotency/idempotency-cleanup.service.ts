import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { errorMessage } from '../common/error-message';
import { IdempotencyRecords } from './idempotency-records';

const INTERVAL_MS = 10 * 60 * 1000;

/** Deletes Idempotency-Key rows past their 24 hours (replays ignore them already), every ten minutes. */
@Injectable()
export class IdempotencyCleanup implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(IdempotencyCleanup.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(private readonly records: IdempotencyRecords) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.running = this.sweep();
    }, INTERVAL_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async sweep(): Promise<void> {
    try {
      const deleted = await this.records.deleteExpired();
      if (deleted) this.logger.log({ deleted }, 'Expired idempotency keys deleted');
    } catch (err) {
      this.logger.warn({ err: errorMessage(err) }, 'Deleting expired idempotency keys failed; trying again later');
    }
  }
}
