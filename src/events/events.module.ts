import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { InTransactionHooks } from './hooks';
import { OutboxEvent } from './outbox-event.entity';
import { OutboxStore } from './outbox-store';
import { OutboxService } from './outbox.service';
import { TransactionRunner } from './transaction-runner';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([OutboxEvent])],
  providers: [TransactionRunner, InTransactionHooks, OutboxStore, OutboxService],
  exports: [TransactionRunner, InTransactionHooks, OutboxService],
})
export class EventsModule {}
