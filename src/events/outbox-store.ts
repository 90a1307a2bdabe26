import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { affected, sql, sqlOne } from '../common/database';
import type { Mode, Scope } from '../common/scope';
import { DomainEvent, isPublicEventType } from './event-map';

interface EventRow {
  id: string;
  partner_id: number;
  mode: Mode;
  type: string;
  payload: Record<string, unknown>;
  occurred_at: Date;
}

/** Outbox rows claimed by a relay: every row's id (to mark), and the public events among them (to deliver). */
export interface ClaimedEvents {
  ids: string[];
  events: DomainEvent[];
}

/**
 * Every query of the `events` outbox table. Transactions append to it (TransactionRunner); through OutboxService the
 * webhooks module marks rows dispatched once their deliveries exist, its relay claims the rows nobody dispatched, and
 * metrics counts the backlog.
 */
@Injectable()
export class OutboxStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** A transaction's recorded events, in one multi-row INSERT inside that transaction. */
  async append(em: EntityManager, events: DomainEvent[]): Promise<void> {
    if (!events.length) return;
    await sql(
      em,
      `INSERT INTO events (id, partner_id, mode, type, payload, occurred_at)
       SELECT * FROM unnest($1::varchar[], $2::int[], $3::varchar[], $4::varchar[], $5::jsonb[], $6::timestamptz[])`,
      [
        events.map((e) => e.id),
        events.map((e) => e.partnerId),
        events.map((e) => e.mode),
        events.map((e) => e.type),
        events.map((e) => JSON.stringify(e.payload)),
        events.map((e) => e.occurredAt),
      ],
    );
  }

  /**
   * Locks up to `limit` undispatched rows older than `graceSeconds` in the caller's transaction, skipping rows another
   * relay holds. NO KEY UPDATE: deliveries reference events by key, and are inserted from another connection meanwhile.
   */
  async claimUndispatched(em: EntityManager, limit: number, graceSeconds: number): Promise<ClaimedEvents> {
    const rows = await sql<EventRow>(
      em,
      `SELECT id, partner_id, mode, type, payload, occurred_at FROM events
        WHERE dispatched_at IS NULL AND created_at < now() - make_interval(secs => $1)
        ORDER BY created_at LIMIT $2 FOR NO KEY UPDATE SKIP LOCKED`,
      [graceSeconds, limit],
    );
    const events: DomainEvent[] = rows
      .filter((r) => isPublicEventType(r.type))
      .map((r) => ({
        id: r.id,
        type: r.type as DomainEvent['type'],
        partnerId: r.partner_id,
        mode: r.mode,
        payload: r.payload as never,
        occurredAt: r.occurred_at,
      }));
    return { ids: rows.map((r) => r.id), events };
  }

  /** In the caller's transaction when given one (the relay's claim), else on its own. */
  async markDispatched(eventIds: string[], em: EntityManager = this.dataSource.manager): Promise<void> {
    await affected(em, `UPDATE events SET dispatched_at = now() WHERE id = ANY ($1::varchar[]) AND dispatched_at IS NULL`, [eventIds]);
  }

  /**
   * An event that no fan-out may pick up, already marked dispatched: a webhook test event, whose one delivery its
   * sender creates itself (delivery rows reference their event).
   */
  async appendDispatched(em: EntityManager, event: Scope & { id: string; type: string; payload: object; occurredAt: Date }): Promise<void> {
    await sql(em, `INSERT INTO events (id, partner_id, mode, type, payload, occurred_at, dispatched_at) VALUES ($1, $2, $3, $4, $5, $6, now())`, [
      event.id,
      event.partnerId,
      event.mode,
      event.type,
      JSON.stringify(event.payload),
      event.occurredAt,
    ]);
  }

  /** Events committed but not yet fanned out to webhooks. */
  async countUndispatched(): Promise<number> {
    const row = await sqlOne<{ n: number }>(this.dataSource, 'SELECT count(*)::int AS n FROM events WHERE dispatched_at IS NULL');
    return row?.n ?? 0;
  }
}
