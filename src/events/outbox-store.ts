import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { affected, prepared, sql, sqlOne, sqlWithNext } from '../common/database';
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

/** Every write transaction that records an event sends this, and every fan-out batch the mark. */
const APPEND = prepared(
  `WITH e AS (
     INSERT INTO events (id, partner_id, mode, type, payload, occurred_at)
     SELECT * FROM unnest($1::varchar[], $2::int[], $3::varchar[], $4::varchar[], $5::jsonb[], $6::timestamptz[])
     RETURNING id, created_at)
   INSERT INTO events_undispatched (event_id, created_at) SELECT id, created_at FROM e`,
);
/**
 * Commits asynchronously (`synchronous_commit` off for its own transaction, or the relay's claim it runs in): nothing
 * waits for a mark, and a mark PostgreSQL loses in a crash only leaves its events to the relay, which finds their
 * deliveries made already.
 */
const MARK_DISPATCHED = prepared(
  `WITH cfg AS (SELECT set_config('synchronous_commit', 'off', true))
   DELETE FROM events_undispatched USING cfg WHERE event_id = ANY ($1::varchar[])`,
);

/** Outbox rows claimed by a relay: every row's id (to mark), and the public events among them (to deliver). */
export interface ClaimedEvents {
  ids: string[];
  events: DomainEvent[];
}

/**
 * Every query of the `events` outbox table and of `events_undispatched`, its events not dispatched yet. Transactions append to it (TransactionRunner); through OutboxService the
 * webhooks module marks rows dispatched once their deliveries exist, its relay claims the rows nobody dispatched, and
 * metrics counts the backlog.
 */
@Injectable()
export class OutboxStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * A transaction's recorded events, in one statement inside that transaction: the events, and their keys in
   * `events_undispatched`, which dispatching deletes (an insert-only `events` and a delete keep every write cheap: no
   * row is ever rewritten with its indexes). Nothing is read back, so it goes with the COMMIT (or the transaction's
   * next statement) rather than on a round trip of its own.
   */
  async append(em: EntityManager, events: DomainEvent[]): Promise<void> {
    if (!events.length) return;
    await sqlWithNext(em, APPEND, [
      events.map((e) => e.id),
      events.map((e) => e.partnerId),
      events.map((e) => e.mode),
      events.map((e) => e.type),
      events.map((e) => JSON.stringify(e.payload)),
      events.map((e) => e.occurredAt),
    ]);
  }

  /**
   * Locks up to `limit` undispatched events older than `graceSeconds` in the caller's transaction (their
   * `events_undispatched` rows), skipping those another relay holds.
   */
  async claimUndispatched(em: EntityManager, limit: number, graceSeconds: number): Promise<ClaimedEvents> {
    const rows = await sql<EventRow>(
      em,
      `SELECT e.id, e.partner_id, e.mode, e.type, e.payload, e.occurred_at
         FROM events_undispatched u JOIN events e ON e.id = u.event_id
        WHERE u.created_at < now() - make_interval(secs => $1)
        ORDER BY u.created_at LIMIT $2 FOR UPDATE OF u SKIP LOCKED`,
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
    await affected(em, MARK_DISPATCHED, [eventIds]);
  }

  /**
   * An event that no fan-out may pick up, recorded as dispatched already (no `events_undispatched` row): a webhook
   * test event, whose one delivery its sender creates itself (delivery rows reference their event).
   */
  async appendDispatched(em: EntityManager, event: Scope & { id: string; type: string; payload: object; occurredAt: Date }): Promise<void> {
    await sql(em, `INSERT INTO events (id, partner_id, mode, type, payload, occurred_at) VALUES ($1, $2, $3, $4, $5, $6)`, [
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
    const row = await sqlOne<{ n: number }>(this.dataSource, 'SELECT count(*)::int AS n FROM events_undispatched');
    return row?.n ?? 0;
  }
}
