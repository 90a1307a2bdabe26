import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { affected, sql, sqlOne } from '../common/database';
import { Mode, Scope, scoped } from '../common/scope';
import type { DomainEvent } from '../events/event-map';
import { WebhookAttempt } from './webhook-attempt.entity';
import { DeliveryStatus, WebhookDelivery } from './webhook-delivery.entity';
import { WebhookSubscription } from './webhook-subscription.entity';

/** The delivery log's filters across a scope's subscriptions; every one optional. */
export interface DeliveryFilter {
  status?: DeliveryStatus;
  eventType?: string;
  subscriptionId?: string;
  from?: Date;
  to?: Date;
}

export type NewSubscription = Pick<WebhookSubscription, 'id' | 'url' | 'events' | 'secretEncrypted' | 'status' | 'disabledReason'>;

/** subscription_id: varchar; active: boolean; idx: int (1-based position of the event in the batch). */
export interface SubscriptionMatch {
  subscription_id: string;
  active: boolean;
  idx: number;
}

/** One row of webhook_deliveries as the fan-out creates it (`body` is the exact envelope later signed and sent). */
export interface NewDelivery {
  id: string;
  subscriptionId: string;
  eventId: string;
  partnerId: number;
  mode: Mode;
  eventType: string;
  body: string;
  status: Extract<DeliveryStatus, 'pending' | 'skipped'>;
}

/** Every query of the webhooks API side: subscriptions, the delivery log, and the fan-out's deliveries. Partner-triggered reads go through Scoped. */
@Injectable()
export class WebhooksRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  // ---- subscriptions ----

  insertSubscription(em: EntityManager, scope: Scope, values: NewSubscription): Promise<WebhookSubscription> {
    return em.save(scoped(em, scope).create(WebhookSubscription, values));
  }

  saveSubscription(em: EntityManager, sub: WebhookSubscription): Promise<WebhookSubscription> {
    return em.save(sub);
  }

  findSubscription(scope: Scope, id: string, em: EntityManager = this.dataSource.manager): Promise<WebhookSubscription | null> {
    return scoped(em, scope).findOne(WebhookSubscription, { id });
  }

  /** The caller's subscriptions, newest first, with the total. */
  pageSubscriptions(scope: Scope, offset: number, limit: number): Promise<[WebhookSubscription[], number]> {
    return scoped(this.dataSource.manager, scope)
      .query(WebhookSubscription, 's')
      .orderBy('s.created_at', 'DESC')
      .addOrderBy('s.id', 'DESC')
      .skip(offset)
      .take(limit)
      .getManyAndCount();
  }

  /** The subscription's deliveries and attempts go with it (ON DELETE CASCADE). */
  async deleteSubscription(scope: Scope, id: string): Promise<void> {
    await affected(this.dataSource, `DELETE FROM webhook_subscriptions WHERE id = $1 AND partner_id = $2 AND mode = $3`, [id, scope.partnerId, scope.mode]);
  }

  /** Serialises subscription changes of one partner and mode until the transaction ends. */
  async lockSubscriptionsOf(em: EntityManager, scope: Scope): Promise<void> {
    await sql(em, `SELECT pg_advisory_xact_lock(hashtext('webhook_subscriptions'), hashtext($1))`, [`${scope.partnerId}:${scope.mode}`]);
  }

  /** How many subscriptions the scope has, active or disabled (a disabled one still records skipped deliveries). */
  async countSubscriptions(em: EntityManager, scope: Scope): Promise<number> {
    const row = await sqlOne<{ n: number }>(em, `SELECT count(*)::int AS n FROM webhook_subscriptions WHERE partner_id = $1 AND mode = $2`, [
      scope.partnerId,
      scope.mode,
    ]);
    return row?.n ?? 0;
  }

  /** The distinct event types of the scope's active subscriptions, optionally leaving one subscription out. */
  async activeEventTypes(em: EntityManager, scope: Scope, exceptId?: string): Promise<string[]> {
    // type: text
    const rows = await sql<{ type: string }>(
      em,
      `SELECT DISTINCT unnest(events) AS type FROM webhook_subscriptions
        WHERE partner_id = $1 AND mode = $2 AND status = 'active' AND ($3::varchar IS NULL OR id <> $3)`,
      [scope.partnerId, scope.mode, exceptId ?? null],
    );
    return rows.map((r) => r.type);
  }

  // ---- the delivery log ----

  /** One subscription's deliveries, newest first, with the total. */
  pageDeliveries(scope: Scope, subscriptionId: string, offset: number, limit: number): Promise<[WebhookDelivery[], number]> {
    return scoped(this.dataSource.manager, scope)
      .query(WebhookDelivery, 'd')
      .andWhere('d.subscription_id = :sid', { sid: subscriptionId })
      .orderBy('d.created_at', 'DESC')
      .addOrderBy('d.id', 'DESC')
      .skip(offset)
      .take(limit)
      .getManyAndCount();
  }

  /** The scope's deliveries across its subscriptions, filtered, newest first, with the total. */
  searchDeliveries(scope: Scope, filter: DeliveryFilter, offset: number, limit: number): Promise<[WebhookDelivery[], number]> {
    const q = scoped(this.dataSource.manager, scope).query(WebhookDelivery, 'd');
    if (filter.status) q.andWhere('d.status = :status', { status: filter.status });
    if (filter.eventType) q.andWhere('d.event_type = :eventType', { eventType: filter.eventType });
    if (filter.subscriptionId) q.andWhere('d.subscription_id = :sid', { sid: filter.subscriptionId });
    if (filter.from) q.andWhere('d.created_at >= :from', { from: filter.from });
    if (filter.to) q.andWhere('d.created_at < :to', { to: filter.to });
    return q.orderBy('d.created_at', 'DESC').addOrderBy('d.id', 'DESC').skip(offset).take(limit).getManyAndCount();
  }

  findDelivery(scope: Scope, id: string): Promise<WebhookDelivery | null> {
    return scoped(this.dataSource.manager, scope).findOne(WebhookDelivery, { id });
  }

  findDeliveryOf(scope: Scope, subscriptionId: string, id: string): Promise<WebhookDelivery | null> {
    return scoped(this.dataSource.manager, scope).findOne(WebhookDelivery, { id, subscriptionId });
  }

  /** Every attempt of a delivery, oldest first. */
  attemptsOf(deliveryId: string): Promise<WebhookAttempt[]> {
    return this.dataSource.getRepository(WebhookAttempt).find({ where: { deliveryId }, order: { attemptedAt: 'ASC', id: 'ASC' } });
  }

  /** The delivery becomes pending again, due now, whatever its state. */
  async resetForRedelivery(deliveryId: string): Promise<void> {
    await affected(
      this.dataSource,
      // A new retry schedule starts from the attempts made so far.
      `UPDATE webhook_deliveries SET status = 'pending', delivered_at = NULL, next_attempt_at = now(), retry_base = attempts WHERE id = $1`,
      [deliveryId],
    );
  }

  /** Every failed or skipped delivery of the subscription created since `since` becomes pending again; their ids, oldest first. */
  async resetFailedSince(scope: Scope, subscriptionId: string, since: Date): Promise<string[]> {
    // id: varchar. A CTE, so the driver answers rows (a bare UPDATE … RETURNING comes back as [rows, count]).
    const rows = await sql<{ id: string }>(
      this.dataSource,
      `WITH r AS (
         UPDATE webhook_deliveries SET status = 'pending', delivered_at = NULL, next_attempt_at = now(), retry_base = attempts
          WHERE subscription_id = $1 AND partner_id = $2 AND mode = $3 AND status IN ('failed', 'skipped') AND created_at >= $4
          RETURNING id, created_at)
       SELECT id FROM r ORDER BY created_at, id`,
      [subscriptionId, scope.partnerId, scope.mode, since],
    );
    return rows.map((r) => r.id);
  }

  // ---- the fan-out ----

  /** Every (event, subscription) pair where the subscription lists the event's type, active or not. */
  subscriptionsMatching(events: DomainEvent[]): Promise<SubscriptionMatch[]> {
    return sql<SubscriptionMatch>(
      this.dataSource,
      `SELECT s.id AS subscription_id, s.status = 'active' AS active, e.idx::int AS idx
         FROM unnest($1::int[], $2::varchar[], $3::text[]) WITH ORDINALITY AS e(partner_id, mode, type, idx)
         JOIN webhook_subscriptions s
           ON s.partner_id = e.partner_id AND s.mode = e.mode AND e.type = ANY (s.events)`,
      [events.map((e) => e.partnerId), events.map((e) => e.mode), events.map((e) => e.type)],
    );
  }

  /**
   * Inserts the deliveries not there yet and returns the ids of every pending delivery of these events: the new ones
   * (RETURNING) plus those left pending by an earlier try (the statement's snapshot), in one round trip.
   */
  async insertDeliveries(rows: NewDelivery[], eventIds: string[], em: EntityManager = this.dataSource.manager): Promise<string[]> {
    // id: varchar
    const pending = await sql<{ id: string }>(
      em,
      `WITH ins AS (
         INSERT INTO webhook_deliveries (id, subscription_id, event_id, partner_id, mode, event_type, body, status)
         SELECT * FROM unnest($1::varchar[], $2::varchar[], $3::varchar[], $4::int[], $5::varchar[], $6::varchar[], $7::text[], $8::varchar[])
         ON CONFLICT (event_id, subscription_id) DO NOTHING RETURNING id, status)
       SELECT id FROM ins WHERE status = 'pending'
       UNION
       SELECT id FROM webhook_deliveries WHERE event_id = ANY ($9::varchar[]) AND status = 'pending'`,
      [
        rows.map((r) => r.id),
        rows.map((r) => r.subscriptionId),
        rows.map((r) => r.eventId),
        rows.map((r) => r.partnerId),
        rows.map((r) => r.mode),
        rows.map((r) => r.eventType),
        rows.map((r) => r.body),
        rows.map((r) => r.status),
        eventIds,
      ],
    );
    return pending.map((r) => r.id);
  }
}
