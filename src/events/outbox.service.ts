import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../common/scope';
import { ClaimedEvents, OutboxStore } from './outbox-store';

export type { ClaimedEvents } from './outbox-store';

/**
 * What other features may do with the outbox: webhooks dispatch its events (the fan-out, the relay, a test event) and
 * metrics counts its backlog. They come through here, as for any feature's tables; OutboxStore stays the events
 * feature's own.
 */
@Injectable()
export class OutboxService {
  constructor(private readonly store: OutboxStore) {}

  /** Locks undispatched rows in the caller's transaction, skipping rows another relay holds (see OutboxStore). */
  claimUndispatched(em: EntityManager, limit: number, graceSeconds: number): Promise<ClaimedEvents> {
    return this.store.claimUndispatched(em, limit, graceSeconds);
  }

  /** In the caller's transaction when given one (the relay's claim), else on its own. */
  markDispatched(eventIds: string[], em?: EntityManager): Promise<void> {
    return this.store.markDispatched(eventIds, em);
  }

  /** An event no fan-out may pick up (a webhook test event), recorded as already dispatched. */
  appendDispatched(em: EntityManager, event: Scope & { id: string; type: string; payload: object; occurredAt: Date }): Promise<void> {
    return this.store.appendDispatched(em, event);
  }

  /** Events committed but not yet fanned out to webhooks. */
  countUndispatched(): Promise<number> {
    return this.store.countUndispatched();
  }
}
