import { Injectable } from '@nestjs/common';
import { newId } from '../common/ids';
import type { DomainEvent } from '../events/event-map';
import { OutboxService } from '../events/outbox.service';
import { WebhookQueue } from './webhook-queue';
import { NewDelivery, WebhooksRepository } from './webhooks.repository';

/**
 * Turns committed outbox events into deliveries: one row per (event, matching subscription), whose body is the
 * envelope serialised once, then one job per delivery. Generic over event types: it never looks inside `payload`.
 */
@Injectable()
export class WebhookFanOut {
  constructor(
    private readonly repo: WebhooksRepository,
    private readonly queue: WebhookQueue,
    private readonly outbox: OutboxService,
  ) {}

  /** Delivers and marks the events dispatched. If anything fails the events stay undispatched and the relay retries them. */
  async dispatch(events: DomainEvent[]): Promise<void> {
    await this.deliver(events);
    await this.markDispatched(events.map((e) => e.id));
  }

  /**
   * The part of dispatching a delivery waits for: its row, then its job. Until markDispatched the events stay
   * undispatched, so a crash in between leaves them to the relay, which finds the deliveries already made.
   */
  async deliver(events: DomainEvent[]): Promise<void> {
    const pending = await this.createDeliveries(events);
    await this.queue.enqueueFirstAttempts(pending);
  }

  /** Called once the events' deliveries are enqueued (deliver), never before. */
  markDispatched(eventIds: string[]): Promise<void> {
    return this.outbox.markDispatched(eventIds);
  }

  /**
   * Creates the missing deliveries of these events (committed at once, so a worker can see them as soon as
   * the job exists) and returns every still-pending delivery of them, new or left over from an earlier try.
   * A matching subscription that is disabled gets its delivery too, as `skipped` (never sent, kept for `recover`).
   * Events no subscription matches cost this one statement: there is nothing to insert, and a delivery an earlier try
   * left pending for a subscription that no longer matches (its events changed, or it was removed) is due already, so the
   * delivery sweep enqueues it.
   */
  async createDeliveries(events: DomainEvent[]): Promise<string[]> {
    if (!events.length) return [];
    const matches = await this.repo.subscriptionsMatching(events);
    if (!matches.length) return [];
    const rows = matches.map((m): NewDelivery => {
      const event = events[m.idx - 1];
      const id = newId('whd');
      const body = JSON.stringify({ event: event.type, timestamp: event.occurredAt.toISOString(), webhook_id: id, data: event.payload });
      return {
        id,
        subscriptionId: m.subscription_id,
        eventId: event.id,
        partnerId: event.partnerId,
        mode: event.mode,
        eventType: event.type,
        body,
        status: m.active ? 'pending' : 'skipped',
      };
    });
    return this.repo.insertDeliveries(
      rows,
      events.map((e) => e.id),
    );
  }
}
