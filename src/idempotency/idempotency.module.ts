import { Module } from '@nestjs/common';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyRecords } from './idempotency-records';
import { IdempotencyRepository } from './idempotency.repository';
import { IdempotencyStore } from './idempotency.store';
import { IdempotencySubscriber } from './idempotency.subscriber';
import { ResponseBox } from './response-box';

/** The Idempotency-Key interceptor (put on every POST route by applyIdempotencyToWrites), its Redis fast path and its PostgreSQL record. */
@Module({
  providers: [IdempotencyStore, IdempotencyRecords, IdempotencyRepository, IdempotencySubscriber, ResponseBox, IdempotencyInterceptor],
  exports: [IdempotencyRecords],
})
export class IdempotencyModule {}
