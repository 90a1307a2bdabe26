import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { newId } from '../common/ids';
import type { DomainEvent } from '../events/event-map';
import { OutboxStore } from '../events/outbox-store';
import { WebhookQueue } from './webhook-queue';

/**
 * Turns committed outbox events into deliveries: one row per (event, matching subscription), whose body is the
 * envelope serialised once, then one job per delivery. Generic over event types: it never looks inside `payload`.
 */
@Injectable()
export class WebhookFanOut {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly queue: WebhookQueue,
    private readonly outbox: OutboxStore,
  ) {}

  /** The in-process path after commit. If anything fails the events stay undispatched and the relay retries them. */
  async dispatch(events: DomainEvent[]): Promise<void> {
    const pending = await this.createDeliveries(events);
    await this.queue.enqueue(pending);
    await this.outbox.markDispatched(events.map((e) => e.id));
  }

  /**
   * Creates the missing deliveries of these events (committed at once, so a worker can see them as soon as
   * the job exists) and returns every still-pending delivery of them, new or left over from an earlier try.
   * A matching subscription that is disabled gets its delivery too, as `skipped` (never sent, kept for `recover`).
   */
  async createDeliveries(events: DomainEvent[]): Promise<string[]> {
    if (!events.length) return [];
    const matches: Array<{ subscription_id: string; active: boolean; idx: number }> = await this.dataSource.query(
      `SELECT s.id AS subscription_id, s.status = 'active' AS active, e.idx::int AS idx
         FROM unnest($1::int[], $2::varchar[], $3::text[]) WITH ORDINALITY AS e(partner_id, mode, type, idx)
         JOIN webhook_subscriptions s
           ON s.partner_id = e.partner_id AND s.mode = e.mode AND e.type = ANY (s.events)`,
      [events.map((e) => e.partnerId), events.map((e) => e.mode), events.map((e) => e.type)],
    );
    const rows = matches.map((m) => {
      const event = events[m.idx - 1];
      const id = newId('whd');
      const body = JSON.stringify({ event: event.type, timestamp: event.occurredAt.toISOString(), webhook_id: id, data: event.payload });
      return [id, m.subscription_id, event.id, event.partnerId, event.mode, event.type, body, m.active ? 'pending' : 'skipped'] as const;
    });
    // New pending deliveries (RETURNING) plus pending ones left by an earlier try (the statement's snapshot), in one round trip.
    const pending: Array<{ id: string }> = await this.dataSource.query(
      `WITH ins AS (
         INSERT INTO webhook_deliveries (id, subscription_id, event_id, partner_id, mode, event_type, body, status)
         SELECT * FROM unnest($1::varchar[], $2::varchar[], $3::varchar[], $4::int[], $5::varchar[], $6::varchar[], $7::text[], $8::varchar[])
         ON CONFLICT (event_id, subscription_id) DO NOTHING RETURNING id, status)
       SELECT id FROM ins WHERE status = 'pending'
       UNION
       SELECT id FROM webhook_deliveries WHERE event_id = ANY ($9::varchar[]) AND status = 'pending'`,
      [...[0, 1, 2, 3, 4, 5, 6, 7].map((i) => rows.map((r) => r[i])), events.map((e) => e.id)],
    );
    return pending.map((r) => r.id);
  }
}
