import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { affected, prepared, returning, sql, sqlOne } from '../common/database';
import { inScope, Mode, Scope, scopeParams } from '../common/scope';
import type { DomainEvent, PublicEventType } from '../events/event-map';
import type { DeliveryStatus } from './webhook-delivery.entity';
import type { SubscriptionStatus } from './webhook-subscription.entity';

/** A partner endpoint that receives the event types it lists; the signing secrets stay sealed (SecretBox). */
export interface WebhookSubscription {
  id: string;
  partnerId: number;
  mode: Mode;
  url: string;
  events: PublicEventType[];
  secretEncrypted: string;
  /** The secret before the last rotation, still signing until previousSecretExpiresAt. */
  secretPreviousEncrypted: string | null;
  previousSecretExpiresAt: Date | null;
  status: SubscriptionStatus;
  /** The first failed attempt since the last success (null while healthy); drives auto-disable. */
  failingSince: Date | null;
  disabledReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

interface SubscriptionRow {
  id: string;
  partner_id: number;
  mode: Mode;
  url: string;
  events: PublicEventType[];
  secret_encrypted: string;
  secret_previous_encrypted: string | null;
  previous_secret_expires_at: Date | null;
  status: SubscriptionStatus;
  failing_since: Date | null;
  disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

const SUBSCRIPTION_COLUMNS =
  'id, partner_id, mode, url, events, secret_encrypted, secret_previous_encrypted, previous_secret_expires_at, status, failing_since, disabled_reason, created_at, updated_at';

function toSubscription(r: SubscriptionRow): WebhookSubscription {
  return {
    id: r.id,
    partnerId: r.partner_id,
    mode: r.mode,
    url: r.url,
    events: r.events,
    secretEncrypted: r.secret_encrypted,
    secretPreviousEncrypted: r.secret_previous_encrypted,
    previousSecretExpiresAt: r.previous_secret_expires_at,
    status: r.status,
    failingSince: r.failing_since,
    disabledReason: r.disabled_reason,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** One event for one subscription; `id` is the envelope's webhook_id and `body` the exact bytes signed and sent. */
export interface WebhookDelivery {
  id: string;
  subscriptionId: string;
  eventId: string;
  eventType: string;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
  nextAttemptAt: Date | null;
}

interface DeliveryRow {
  id: string;
  subscription_id: string;
  event_id: string;
  event_type: string;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  delivered_at: Date | null;
  next_attempt_at: Date | null;
}

const DELIVERY_COLUMNS =
  'id, subscription_id, event_id, event_type, body, status, attempts, last_status_code, last_error, created_at, delivered_at, next_attempt_at';

function toDelivery(r: DeliveryRow): WebhookDelivery {
  return {
    id: r.id,
    subscriptionId: r.subscription_id,
    eventId: r.event_id,
    eventType: r.event_type,
    body: r.body,
    status: r.status,
    attempts: r.attempts,
    lastStatusCode: r.last_status_code,
    lastError: r.last_error,
    createdAt: r.created_at,
    deliveredAt: r.delivered_at,
    nextAttemptAt: r.next_attempt_at,
  };
}

/** One HTTP attempt of a delivery, kept for support and for the partner's delivery log. */
export interface WebhookAttempt {
  attemptedAt: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
  /** What the attempt was sent with; null for attempts recorded before headers were kept. */
  requestHeaders: Record<string, string> | null;
}

interface AttemptRow {
  attempted_at: Date;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_body: string | null;
  request_headers: Record<string, string> | null;
}

/** The delivery log's filters across a scope's subscriptions; every one optional. */
export interface DeliveryFilter {
  status?: DeliveryStatus;
  eventType?: string;
  subscriptionId?: string;
  from?: Date;
  to?: Date;
}

export type NewSubscription = Pick<WebhookSubscription, 'id' | 'url' | 'events' | 'secretEncrypted' | 'status' | 'disabledReason'>;

/** The columns a subscription change may set. */
export type SubscriptionChange = Pick<
  WebhookSubscription,
  'id' | 'url' | 'events' | 'secretEncrypted' | 'secretPreviousEncrypted' | 'previousSecretExpiresAt' | 'status' | 'failingSince' | 'disabledReason'
>;

/** One webhook_deliveries row made outside the fan-out (a test event's; `body` is the exact envelope later signed and sent). */
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

/**
 * A fan-out batch in one statement: every (event, subscription of the same partner and mode listing the type) pair
 * gets its delivery row, `skipped` for a disabled subscription, and the statement answers the ids of every pending
 * delivery of these events, new or left pending by an earlier try.
 *
 * - The delivery id is derived from the event and the subscription (`deliveryIdOf`, the same derivation in SQL: the
 *   first 22 base64 characters of SHA-256("<event id>:<subscription id>"), `+` and `/` read as `x` and `y`, about 130
 *   bits in the base62 alphabet of every id), and the body is the envelope built from the event's JSON text as given,
 *   byte for byte what `JSON.stringify({ event, timestamp, webhook_id, data })` makes. So the matching needs no round
 *   trip of its own, and a batch made again (by the relay) makes the same deliveries under the same ids.
 * - The commit is asynchronous (`synchronous_commit` off for this statement's transaction only): no WAL flush on the
 *   way to the enqueue. Should PostgreSQL crash before the WAL writer flushes it (a fraction of a second), the rows are
 *   lost with their events' dispatch marks (which come later in the WAL), and the relay makes them again: a delivery
 *   already sent goes again under its `webhook_id`, which a receiver deduplicates (its body from the stored payload,
 *   whose keys may come in another order). Every attempt's record commits synchronously, which flushes these rows first.
 * - Events no subscription matches cost the match alone: the look-up of rows left pending runs only when something matched.
 * - The events come as one JSON document (`json`, whose values keep their text): no per-element array escaping.
 */
const FAN_OUT = prepared(
  `WITH cfg AS (SELECT set_config('synchronous_commit', 'off', true)),
   e AS (
     SELECT * FROM json_to_recordset($1::json) AS e(id varchar, partner_id int, mode varchar, type varchar, ts text, data json)),
   m AS (
     SELECT e.id AS event_id, e.partner_id, e.mode, e.type, e.ts, e.data, s.id AS subscription_id, s.status = 'active' AS active,
            'whd_' || translate(left(encode(substring(sha256(convert_to(e.id || ':' || s.id, 'UTF8')) FROM 1 FOR 17), 'base64'), 22), '+/', 'xy') AS id
       FROM cfg, e JOIN webhook_subscriptions s ON s.partner_id = e.partner_id AND s.mode = e.mode AND e.type = ANY (s.events)),
   ins AS (
     INSERT INTO webhook_deliveries (id, subscription_id, event_id, partner_id, mode, event_type, body, status)
     SELECT id, subscription_id, event_id, partner_id, mode, type,
            '{"event":' || to_json(type)::text || ',"timestamp":' || to_json(ts)::text || ',"webhook_id":"' || id || '","data":' || data::text || '}',
            CASE WHEN active THEN 'pending' ELSE 'skipped' END
       FROM m
     ON CONFLICT (event_id, subscription_id) DO NOTHING RETURNING id, status)
   SELECT id FROM ins WHERE status = 'pending'
   UNION
   SELECT id FROM webhook_deliveries
    WHERE event_id IN (SELECT id FROM e) AND status = 'pending' AND EXISTS (SELECT 1 FROM m)`,
);

/** The id of an event's delivery to a subscription: what FAN_OUT derives in SQL. */
export function deliveryIdOf(eventId: string, subscriptionId: string): string {
  const digest = createHash('sha256').update(`${eventId}:${subscriptionId}`).digest();
  return `whd_${digest.subarray(0, 17).toString('base64').slice(0, 22).replaceAll('+', 'x').replaceAll('/', 'y')}`;
}

/** Every query of the webhooks API side: subscriptions, the delivery log, and the fan-out's deliveries. Partner-triggered statements filter on the scope (`inScope`). */
@Injectable()
export class WebhooksRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  // ---- subscriptions ----

  async insertSubscription(em: EntityManager, scope: Scope, values: NewSubscription): Promise<WebhookSubscription> {
    const [row] = await sql<SubscriptionRow>(
      em,
      `INSERT INTO webhook_subscriptions (partner_id, mode, id, url, events, secret_encrypted, status, disabled_reason)
       VALUES ($1, $2, $3, $4, $5::text[], $6, $7, $8) RETURNING ${SUBSCRIPTION_COLUMNS}`,
      scopeParams(scope, values.id, values.url, values.events, values.secretEncrypted, values.status, values.disabledReason),
    );
    return toSubscription(row);
  }

  async updateSubscription(em: EntityManager, scope: Scope, sub: SubscriptionChange): Promise<WebhookSubscription> {
    const [row] = await returning<SubscriptionRow>(
      em,
      `UPDATE webhook_subscriptions
          SET url = $4, events = $5::text[], secret_encrypted = $6, secret_previous_encrypted = $7, previous_secret_expires_at = $8,
              status = $9, failing_since = $10, disabled_reason = $11, updated_at = now()
        WHERE ${inScope()} AND id = $3
        RETURNING ${SUBSCRIPTION_COLUMNS}`,
      scopeParams(
        scope,
        sub.id,
        sub.url,
        sub.events,
        sub.secretEncrypted,
        sub.secretPreviousEncrypted,
        sub.previousSecretExpiresAt,
        sub.status,
        sub.failingSince,
        sub.disabledReason,
      ),
    );
    return toSubscription(row);
  }

  async findSubscription(scope: Scope, id: string, em: EntityManager = this.dataSource.manager): Promise<WebhookSubscription | null> {
    const row = await sqlOne<SubscriptionRow>(
      em,
      `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE ${inScope()} AND id = $3`,
      scopeParams(scope, id),
    );
    return row && toSubscription(row);
  }

  /** The caller's subscriptions, newest first, with the total. */
  async pageSubscriptions(scope: Scope, offset: number, limit: number): Promise<[WebhookSubscription[], number]> {
    const [rows, total] = await Promise.all([
      sql<SubscriptionRow>(
        this.dataSource,
        `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE ${inScope()} ORDER BY created_at DESC, id DESC OFFSET $3 LIMIT $4`,
        scopeParams(scope, offset, limit),
      ),
      this.countSubscriptions(this.dataSource.manager, scope),
    ]);
    return [rows.map(toSubscription), total];
  }

  /** The subscription's deliveries and attempts go with it (ON DELETE CASCADE). */
  async deleteSubscription(scope: Scope, id: string): Promise<void> {
    await affected(this.dataSource, `DELETE FROM webhook_subscriptions WHERE ${inScope()} AND id = $3`, scopeParams(scope, id));
  }

  /** Serialises subscription changes of one partner and mode until the transaction ends. */
  async lockSubscriptionsOf(em: EntityManager, scope: Scope): Promise<void> {
    await sql(em, `SELECT pg_advisory_xact_lock(hashtext('webhook_subscriptions'), hashtext($1))`, [`${scope.partnerId}:${scope.mode}`]);
  }

  /** How many subscriptions the scope has, active or disabled (a disabled one still records skipped deliveries). */
  async countSubscriptions(em: EntityManager, scope: Scope): Promise<number> {
    const row = await sqlOne<{ n: number }>(em, `SELECT count(*)::int AS n FROM webhook_subscriptions WHERE ${inScope()}`, scopeParams(scope));
    return row?.n ?? 0;
  }

  /** The distinct event types of the scope's active subscriptions, optionally leaving one subscription out. */
  async activeEventTypes(em: EntityManager, scope: Scope, exceptId?: string): Promise<string[]> {
    const rows = await sql<{ type: string }>(
      em,
      `SELECT DISTINCT unnest(events) AS type FROM webhook_subscriptions
        WHERE ${inScope()} AND status = 'active' AND ($3::varchar IS NULL OR id <> $3)`,
      scopeParams(scope, exceptId ?? null),
    );
    return rows.map((r) => r.type);
  }

  // ---- the delivery log ----

  /** One subscription's deliveries, newest first, with the total. */
  pageDeliveries(scope: Scope, subscriptionId: string, offset: number, limit: number): Promise<[WebhookDelivery[], number]> {
    return this.searchDeliveries(scope, { subscriptionId }, offset, limit);
  }

  /** The scope's deliveries across its subscriptions, filtered, newest first, with the total. */
  async searchDeliveries(scope: Scope, filter: DeliveryFilter, offset: number, limit: number): Promise<[WebhookDelivery[], number]> {
    // A filter left out is a NULL parameter, so both statements keep one text whatever the filters.
    const where = `${inScope()} AND ($3::varchar IS NULL OR status = $3) AND ($4::varchar IS NULL OR event_type = $4)
       AND ($5::varchar IS NULL OR subscription_id = $5) AND ($6::timestamptz IS NULL OR created_at >= $6) AND ($7::timestamptz IS NULL OR created_at < $7)`;
    const params = scopeParams(scope, filter.status ?? null, filter.eventType ?? null, filter.subscriptionId ?? null, filter.from ?? null, filter.to ?? null);
    const [rows, count] = await Promise.all([
      sql<DeliveryRow>(
        this.dataSource,
        `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE ${where} ORDER BY created_at DESC, id DESC OFFSET $8 LIMIT $9`,
        [...params, offset, limit],
      ),
      sqlOne<{ n: number }>(this.dataSource, `SELECT count(*)::int AS n FROM webhook_deliveries WHERE ${where}`, params),
    ]);
    return [rows.map(toDelivery), count?.n ?? 0];
  }

  async findDelivery(scope: Scope, id: string): Promise<WebhookDelivery | null> {
    const row = await sqlOne<DeliveryRow>(
      this.dataSource,
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE ${inScope()} AND id = $3`,
      scopeParams(scope, id),
    );
    return row && toDelivery(row);
  }

  async findDeliveryOf(scope: Scope, subscriptionId: string, id: string): Promise<WebhookDelivery | null> {
    const row = await sqlOne<DeliveryRow>(
      this.dataSource,
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE ${inScope()} AND id = $3 AND subscription_id = $4`,
      scopeParams(scope, id, subscriptionId),
    );
    return row && toDelivery(row);
  }

  /** Every attempt of a delivery, oldest first. */
  async attemptsOf(deliveryId: string): Promise<WebhookAttempt[]> {
    const rows = await sql<AttemptRow>(
      this.dataSource,
      `SELECT attempted_at, status_code, duration_ms, error, response_body, request_headers
         FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempted_at, id`,
      [deliveryId],
    );
    return rows.map((r) => ({
      attemptedAt: r.attempted_at,
      statusCode: r.status_code,
      durationMs: r.duration_ms,
      error: r.error,
      responseBody: r.response_body,
      requestHeaders: r.request_headers,
    }));
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
    // A CTE, so the ids come back in order (UPDATE … RETURNING has no ORDER BY).
    const rows = await sql<{ id: string }>(
      this.dataSource,
      `WITH r AS (
         UPDATE webhook_deliveries SET status = 'pending', delivered_at = NULL, next_attempt_at = now(), retry_base = attempts
          WHERE ${inScope()} AND subscription_id = $3 AND status IN ('failed', 'skipped') AND created_at >= $4
          RETURNING id, created_at)
       SELECT id FROM r ORDER BY created_at, id`,
      scopeParams(scope, subscriptionId, since),
    );
    return rows.map((r) => r.id);
  }

  // ---- the fan-out ----

  /**
   * Creates the missing deliveries of these events (FAN_OUT) and returns the ids of every pending delivery of them,
   * new or left pending by an earlier try.
   */
  async fanOut(events: DomainEvent[]): Promise<string[]> {
    const rows = await sql<{ id: string }>(this.dataSource, FAN_OUT, [
      JSON.stringify(events.map((e) => ({ id: e.id, partner_id: e.partnerId, mode: e.mode, type: e.type, ts: e.occurredAt.toISOString(), data: e.payload }))),
    ]);
    return rows.map((r) => r.id);
  }

  /**
   * Inserts deliveries made outside the fan-out (a test event's, in the caller's transaction) and returns the ids of
   * every pending delivery of these events: the new ones (RETURNING) plus those already there (the statement's snapshot).
   */
  async insertDeliveries(rows: NewDelivery[], eventIds: string[], em: EntityManager = this.dataSource.manager): Promise<string[]> {
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
