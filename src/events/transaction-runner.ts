import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DomainEvent, EVENTS_COMMITTED } from './event-map';
import { InTransactionHooks } from './hooks';
import { OutboxStore } from './outbox-store';
import { Tx } from './tx';

// Features import Tx with the runner that creates it.
export { Tx } from './tx';

const RETRYABLE = new Set(['40001', '40P01']); // serialization failure, deadlock

@Injectable()
export class TransactionRunner {
  private readonly logger = new Logger(TransactionRunner.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly emitter: EventEmitter2,
    private readonly hooks: InTransactionHooks,
    private readonly outbox: OutboxStore,
  ) {}

  /**
   * Runs `work` in one transaction, retried on deadlock or serialization failure,
   * then publishes the recorded events in process (the outbox relay covers a crash in between).
   */
  async run<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const recorded: DomainEvent[] = [];
      try {
        const result = await this.dataSource.transaction(async (em) => {
          const out = await work(new Tx(em, recorded, this.hooks));
          await this.outbox.append(em, recorded);
          return out;
        });
        if (recorded.length) this.publish(recorded);
        return result;
      } catch (e) {
        const code = (e as { code?: string }).code;
        if (!code || !RETRYABLE.has(code) || attempt >= 3) throw e;
        this.logger.warn({ code, attempt }, 'Transaction retried');
      }
    }
  }

  private publish(events: DomainEvent[]): void {
    try {
      this.emitter.emit(EVENTS_COMMITTED, events);
    } catch (e: unknown) {
      // Listeners must not fail a committed request; the relay dispatches anything left behind.
      this.logger.error({ err: e }, 'Publishing committed events failed');
    }
  }
}
