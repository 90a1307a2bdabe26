import type { EntityManager } from 'typeorm';
import { newId } from '../common/ids';
import { Scope } from '../common/scope';
import type { DomainEvent, PublicEventMap, PublicEventType } from './event-map';
import type { HookName, InTransactionHookMap } from './hook-map';

export type HookHandler<K extends HookName> = (tx: Tx, input: InTransactionHookMap[K]['input']) => Promise<InTransactionHookMap[K]['output']>;

/** Where a transaction finds the handler of a hook it raises (InTransactionHooks). */
export interface HookHandlers {
  handlerOf<K extends HookName>(name: K): HookHandler<K>;
}

/** One business transaction: its entity manager and the events it records (outbox). */
export class Tx {
  constructor(
    readonly em: EntityManager,
    private readonly recorded: DomainEvent[],
    private readonly hooks: HookHandlers,
  ) {}

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
