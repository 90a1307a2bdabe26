import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { newId } from '../common/ids';
import { Scope, Scoped } from '../common/scope';
import { DomainEvent, EVENTS_COMMITTED, PublicEventMap, PublicEventType } from './event-map';
import { HookName, InTransactionHookMap, InTransactionHooks } from './hooks';

/** One business transaction: its entity manager, its scoped queries, and the events it records (outbox). */
export class Tx {
  constructor(
    readonly em: EntityManager,
    private readonly recorded: DomainEvent[],
    private readonly hooks: InTransactionHooks,
  ) {}

  scoped(scope: Scope): Scoped {
    return new Scoped(this.em, scope);
  }

  /**
   * Records the event in this transaction's outbox; it is published only if the transaction commits. The events a
   * transaction records are written together, in one statement just before COMMIT (TransactionRunner.run).
   */
  record<K extends PublicEventType>(scope: Scope, type: K, payload: PublicEventMap[K], occurredAt = new Date()): Promise<DomainEvent<K>> {
    const event: DomainEvent<K> = { id: newId('evt'), type, partnerId: scope.partnerId, mode: scope.mode, payload, occurredAt };
    this.recorded.push(event);
    return Promise.resolve(event);
  }

  /** Raises an internal event handled inside this same transaction (see InTransactionHookMap); its handler must exist. */
  async raise<K extends HookName>(name: K, input: InTransactionHookMap[K]['input']): Promise<InTransactionHookMap[K]['output']> {
    return this.hooks.handlerOf(name)(this, input);
  }
}

const RETRYABLE = new Set(['40001', '40P01']); // serialization failure, deadlock

@Injectable()
export class TransactionRunner {
  private readonly logger = new Logger(TransactionRunner.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly emitter: EventEmitter2,
    private readonly hooks: InTransactionHooks,
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
          await writeOutbox(em, recorded);
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

/** The transaction's recorded events, written to the outbox in one multi-row INSERT. */
async function writeOutbox(em: EntityManager, events: DomainEvent[]): Promise<void> {
  if (!events.length) return;
  await em.query(
    `INSERT INTO events (id, partner_id, mode, type, payload, occurred_at)
     SELECT * FROM unnest($1::varchar[], $2::int[], $3::varchar[], $4::varchar[], $5::jsonb[], $6::timestamptz[])`,
    [events.map((e) => e.id), events.map((e) => e.partnerId), events.map((e) => e.mode), events.map((e) => e.type), events.map((e) => JSON.stringify(e.payload)), events.map((e) => e.occurredAt)],
  );
}
