import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '../events/event-map';
import { OutboxService } from '../events/outbox.service';
import { WebhookQueue } from './webhook-queue';
import { WebhooksRepository } from './webhooks.repository';

/**
 * Turns committed outbox events into deliveries: one row per (event, matching subscription), whose body is the
 * envelope serialised once, then their first attempts' jobs. Generic over event types: it never looks inside `payload`.
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
   * Creates the missing deliveries of these events, committed at once (so a worker can see them as soon as the job
   * exists), and returns every still-pending delivery of them, new or left over from an earlier try: one statement
   * (WebhooksRepository.fanOut), which matches the subscriptions too. A matching subscription that is disabled gets its
   * delivery as `skipped` (never sent, kept for `recover`). A delivery an earlier try left pending for a subscription
   * that no longer matches (its events changed, or it was removed) is due already, so the delivery sweep enqueues it.
   */
  async createDeliveries(events: DomainEvent[]): Promise<string[]> {
    if (!events.length) return [];
    return this.repo.fanOut(events);
  }
}
