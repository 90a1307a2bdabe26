import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyRecords } from './idempotency-records';
import { IdempotencyRepository } from './idempotency.repository';
import { IdempotencyStore } from './idempotency.store';
import { IdempotencySubscriber } from './idempotency.subscriber';
import { ResponseBox } from './response-box';

/** The Idempotency-Key interceptor for every route, its Redis fast path and its PostgreSQL record. */
@Module({
  providers: [
    IdempotencyStore,
    IdempotencyRecords,
    IdempotencyRepository,
    IdempotencySubscriber,
    ResponseBox,
    { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor },
  ],
  exports: [IdempotencyRecords],
})
export class IdempotencyModule {}
