import { Module } from '@nestjs/common';
import { IdempotencyCleanup } from './idempotency-cleanup.service';
import { IdempotencyModule } from './idempotency.module';

/** The retention loop of Idempotency-Key rows: loaded in the API when RUN_WORKER=true, and in the worker process. */
@Module({
  imports: [IdempotencyModule],
  providers: [IdempotencyCleanup],
})
export class IdempotencyWorkerModule {}
