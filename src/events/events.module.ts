import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { InTransactionHooks } from './hooks';
import { OutboxEvent } from './outbox-event.entity';
import { OutboxStore } from './outbox-store';
import { TransactionRunner } from './transaction-runner';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([OutboxEvent])],
  providers: [TransactionRunner, InTransactionHooks, OutboxStore],
  exports: [TransactionRunner, InTransactionHooks, OutboxStore],
})
export class EventsModule {}
