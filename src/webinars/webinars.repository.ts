import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { affected, Queryable, returning, sql, sqlOne } from '../common/database';
import { inScope, Mode, Scope, scopeParams } from '../common/scope';
import type { AttendeeStatus } from './webinar-attendee.entity';
import type { WebinarStatus } from './webinar.entity';

/** One user's seat in a webinar, without its personal link's token (read on its own). */
export interface WebinarAttendee {
  id: number;
  partnerId: number;
  mode: Mode;
  webinarId: string;
  userId: number;
  status: AttendeeStatus;
  registeredAt: Date;
  joinedAt: Date | null;
}

/** A webinar as the feature reads it: without its host token hash, which only the host-link check reads. */
export interface Webinar {
  id: string;
  partnerId: number;
  mode: Mode;
  title: string;
  hostUserId: number;
  scheduledAt: Date;
  durationMinutes: number;
  maxAttendees: number | null;
  seatsTaken: number;
  isPublic: boolean;
  status: WebinarStatus;
  startedAt: Date | null;
  endedAt: Date | null;
  createdAt: Date;
}

/** A webinars row as the statements below select it. */
interface WebinarRow {
  id: string;
  partner_id: number;
  mode: Mode;
  title: string;
  host_user_id: number;
  scheduled_at: Date;
  duration_minutes: number;
  max_attendees: number | null;
  seats_taken: number;
  is_public: boolean;
  status: WebinarStatus;
  started_at: Date | null;
  ended_at: Date | null;
  created_at: Date;
}

// host_token_hash is never read with the webinar: only isHost compares it.
const WEBINAR_COLUMNS =
  'id, partner_id, mode, title, host_user_id, scheduled_at, duration_minutes, max_attendees, seats_taken, is_public, status, started_at, ended_at, created_at';

function toWebinar(r: WebinarRow): Webinar {
  return {
    id: r.id,
    partnerId: r.partner_id,
    mode: r.mode,
    title: r.title,
    hostUserId: r.host_user_id,
    scheduledAt: r.scheduled_at,
    durationMinutes: r.duration_minutes,
    maxAttendees: r.max_attendees,
    seatsTaken: r.seats_taken,
    isPublic: r.is_public,
    status: r.status,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    createdAt: r.created_at,
  };
}

/** A webinar_attendees row as the statements below select it. */
interface AttendeeRow {
  id: number;
  partner_id: number;
  mode: Mode;
  webinar_id: string;
  user_id: number;
  status: AttendeeStatus;
  registered_at: Date;
  joined_at: Date | null;
}

const ATTENDEE_COLUMNS = 'id, partner_id, mode, webinar_id, user_id, status, registered_at, joined_at';

function toAttendee(r: AttendeeRow): WebinarAttendee {
  return {
    id: r.id,
    partnerId: r.partner_id,
    mode: r.mode,
    webinarId: r.webinar_id,
    userId: r.user_id,
    status: r.status,
    registeredAt: r.registered_at,
    joinedAt: r.joined_at,
  };
}

export type NewWebinar = Pick<Webinar, 'id' | 'title' | 'hostUserId' | 'scheduledAt' | 'durationMinutes' | 'maxAttendees' | 'isPublic'> & {
  hostTokenHash: string;
};

// First key of the per-partner advisory lock that serialises room-limit checks ("wbnr").
const ROOM_LOCK = 0x77626e72;

/** Every query of the webinars feature (webinars and their attendees). */
@Injectable()
export class WebinarsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  // ---- webinars ----

  async insert(em: EntityManager, scope: Scope, w: NewWebinar): Promise<Webinar> {
    const [row] = await sql<WebinarRow>(
      em,
      `INSERT INTO webinars (partner_id, mode, id, title, host_user_id, scheduled_at, duration_minutes, max_attendees, seats_taken, is_public, status, host_token_hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0, $9, 'scheduled', $10) RETURNING ${WEBINAR_COLUMNS}`,
      scopeParams(scope, w.id, w.title, w.hostUserId, w.scheduledAt, w.durationMinutes, w.maxAttendees, w.isPublic, w.hostTokenHash),
    );
    return toWebinar(row);
  }

  async find(scope: Scope, id: string, db: Queryable = this.dataSource): Promise<Webinar | null> {
    const row = await sqlOne<WebinarRow>(db, `SELECT ${WEBINAR_COLUMNS} FROM webinars WHERE ${inScope()} AND id = $3`, scopeParams(scope, id));
    return row && toWebinar(row);
  }

  /** Any partner's webinar by its unguessable id (the /live pages). */
  async findAny(id: string): Promise<Webinar | null> {
    const row = await sqlOne<WebinarRow>(this.dataSource, `SELECT ${WEBINAR_COLUMNS} FROM webinars WHERE id = $1`, [id]);
    return row && toWebinar(row);
  }

  async hostTokenHash(id: string): Promise<string | null> {
    const row = await sqlOne<{ host_token_hash: string }>(this.dataSource, `SELECT host_token_hash FROM webinars WHERE id = $1`, [id]);
    return row?.host_token_hash ?? null;
  }

  /** The caller's webinars, latest slot first, optionally of one status, with the total. */
  async page(scope: Scope, status: WebinarStatus | undefined, offset: number, limit: number): Promise<[Webinar[], number]> {
    const params = scopeParams(scope);
    let where = inScope();
    if (status) {
      params.push(status);
      where += ` AND status = $${params.length}`;
    }
    return this.pageWhere(where, params, 'scheduled_at DESC, id ASC', offset, limit);
  }

  /** Public, not ended webinars of every partner in a mode: live ones, and scheduled ones whose slot has not passed. */
  publicPage(mode: Mode, offset: number, limit: number): Promise<[Webinar[], number]> {
    return this.pageWhere(
      `is_public AND mode = $1 AND (status = 'live' OR (status = 'scheduled' AND scheduled_at + make_interval(mins => duration_minutes) > now()))`,
      [mode],
      'scheduled_at ASC, id ASC',
      offset,
      limit,
    );
  }

  /** scheduled → live; false when the webinar was not scheduled. */
  async markLive(em: EntityManager, id: string): Promise<boolean> {
    const rows = await returning<{ id: string }>(
      em,
      `UPDATE webinars SET status = 'live', started_at = now() WHERE id = $1 AND status = 'scheduled' RETURNING id`,
      [id],
    );
    return rows.length > 0;
  }

  /** live → ended; false when the webinar was not live. */
  async markEnded(em: EntityManager, id: string): Promise<boolean> {
    const rows = await returning<{ id: string }>(em, `UPDATE webinars SET status = 'ended', ended_at = now() WHERE id = $1 AND status = 'live' RETURNING id`, [
      id,
    ]);
    return rows.length > 0;
  }

  async status(em: EntityManager, id: string): Promise<WebinarStatus> {
    const row = await sqlOne<{ status: WebinarStatus }>(em, `SELECT status FROM webinars WHERE id = $1`, [id]);
    return row!.status;
  }

  /**
   * Takes `seats` (0 or 1) seats if the webinar is in an allowed state and has room; false otherwise. Conditional
   * on the row itself, so capacity and state hold under any concurrency.
   */
  async takeSeats(em: EntityManager, id: string, seats: number, allowed: WebinarStatus[]): Promise<boolean> {
    const rows = await returning<{ id: string }>(
      em,
      `UPDATE webinars SET seats_taken = seats_taken + $2
       WHERE id = $1 AND status = ANY($3::varchar[]) AND ($2 = 0 OR max_attendees IS NULL OR seats_taken < max_attendees) RETURNING id`,
      [id, seats, allowed],
    );
    return rows.length > 0;
  }

  /** Webinars not ended of the caller, counted under a per-partner advisory lock held until the transaction ends. */
  async lockAndCountOpenRooms(em: EntityManager, scope: Scope): Promise<number> {
    await sql(em, `SELECT pg_advisory_xact_lock($1, $2)`, [ROOM_LOCK, scope.partnerId]);
    // An aggregate always answers one row.
    const row = await sqlOne<{ open: number }>(em, `SELECT count(*)::int AS open FROM webinars WHERE ${inScope()} AND status <> 'ended'`, scopeParams(scope));
    return row!.open;
  }

  // ---- attendees ----

  async joinedCount(id: string, db: Queryable = this.dataSource): Promise<number> {
    // An aggregate always answers one row.
    const row = await sqlOne<{ count: number }>(db, `SELECT count(*)::int AS count FROM webinar_attendees WHERE webinar_id = $1 AND status = 'joined'`, [id]);
    return row!.count;
  }

  async attendeeCount(id: string): Promise<number> {
    const row = await sqlOne<{ count: number }>(this.dataSource, `SELECT count(*)::int AS count FROM webinar_attendees WHERE webinar_id = $1`, [id]);
    return row!.count;
  }

  /** Whose seat a personal link's token (by hash) opens, with the seat's owner scope. */
  async attendeeByTokenHash(webinarId: string, tokenHash: string): Promise<{ scope: Scope; userId: number } | null> {
    const row = await sqlOne<{ partner_id: number; mode: Mode; user_id: number }>(
      this.dataSource,
      `SELECT partner_id, mode, user_id FROM webinar_attendees WHERE webinar_id = $1 AND attendee_token_hash = $2`,
      [webinarId, tokenHash],
    );
    return row && { scope: { partnerId: row.partner_id, mode: row.mode }, userId: row.user_id };
  }

  /** A registered seat; a concurrent insert for the same user waits and then does nothing (false), so one user never holds two seats. */
  async insertAttendee(em: EntityManager, scope: Scope, webinarId: string, userId: number, tokenHash: string, tokenSealed: string): Promise<boolean> {
    const rows = await sql<{ id: number }>(
      em,
      `INSERT INTO webinar_attendees (partner_id, mode, webinar_id, user_id, status, registered_at, attendee_token_hash, attendee_token_sealed)
       VALUES ($1, $2, $3, $4, 'registered', now(), $5, $6) ON CONFLICT (webinar_id, user_id) DO NOTHING RETURNING id`,
      scopeParams(scope, webinarId, userId, tokenHash, tokenSealed),
    );
    return rows.length > 0;
  }

  /**
   * Marks the seat joined while the webinar is live (joined_at keeps the first join): this join's time and whether it
   * was the attendee's first, or null when the webinar is not live. The row lock orders concurrent joins of one seat.
   */
  async markJoined(em: EntityManager, webinarId: string, userId: number): Promise<{ at: Date; first: boolean } | null> {
    const [row] = await returning<{ now: Date; first: boolean }>(
      em,
      `WITH prev AS (
         SELECT a.id, a.joined_at FROM webinar_attendees a JOIN webinars w ON w.id = a.webinar_id AND w.status = 'live'
         WHERE a.webinar_id = $1 AND a.user_id = $2 FOR UPDATE OF a
       )
       UPDATE webinar_attendees a SET status = 'joined', joined_at = COALESCE(a.joined_at, now())
       FROM prev WHERE a.id = prev.id RETURNING now() AS now, prev.joined_at IS NULL AS first`,
      [webinarId, userId],
    );
    return row ? { at: row.now, first: row.first } : null;
  }

  async attendeeTokenSealed(em: EntityManager, webinarId: string, userId: number): Promise<string | null> {
    const row = await sqlOne<{ attendee_token_sealed: string | null }>(
      em,
      `SELECT attendee_token_sealed FROM webinar_attendees WHERE webinar_id = $1 AND user_id = $2`,
      [webinarId, userId],
    );
    return row?.attendee_token_sealed ?? null;
  }

  async replaceAttendeeToken(em: EntityManager, webinarId: string, userId: number, tokenHash: string, tokenSealed: string): Promise<void> {
    await affected(em, `UPDATE webinar_attendees SET attendee_token_hash = $3, attendee_token_sealed = $4 WHERE webinar_id = $1 AND user_id = $2`, [
      webinarId,
      userId,
      tokenHash,
      tokenSealed,
    ]);
  }

  async findAttendee(em: EntityManager, scope: Scope, webinarId: string, userId: number): Promise<WebinarAttendee | null> {
    const row = await sqlOne<AttendeeRow>(
      em,
      `SELECT ${ATTENDEE_COLUMNS} FROM webinar_attendees WHERE ${inScope()} AND webinar_id = $3 AND user_id = $4`,
      scopeParams(scope, webinarId, userId),
    );
    return row && toAttendee(row);
  }

  /** The caller's attendees of a webinar in registration order, with the total. */
  async attendeePage(scope: Scope, webinarId: string, offset: number, limit: number): Promise<[WebinarAttendee[], number]> {
    const params = scopeParams(scope, webinarId);
    const where = `${inScope()} AND webinar_id = $3`;
    // count(*) is a bigint, which the driver answers as a string
    const [rows, counted] = await Promise.all([
      sql<AttendeeRow>(
        this.dataSource,
        `SELECT ${ATTENDEE_COLUMNS} FROM webinar_attendees WHERE ${where} ORDER BY registered_at ASC, id ASC LIMIT $4 OFFSET $5`,
        [...params, limit, offset],
      ),
      sqlOne<{ total: string }>(this.dataSource, `SELECT count(*) AS total FROM webinar_attendees WHERE ${where}`, params),
    ]);
    return [rows.map(toAttendee), Number(counted!.total)];
  }

  /** The host page's list: joined first (in join order), then registered, at most `limit`. */
  async hostList(webinarId: string, limit: number): Promise<Array<{ userId: number; status: AttendeeStatus; joinedAt: Date | null }>> {
    const rows = await sql<{ user_id: number; status: AttendeeStatus; joined_at: Date | null }>(
      this.dataSource,
      `SELECT user_id, status, joined_at FROM webinar_attendees WHERE webinar_id = $1 ORDER BY joined_at ASC NULLS LAST, id ASC LIMIT $2`,
      [webinarId, limit],
    );
    return rows.map((r) => ({ userId: r.user_id, status: r.status, joinedAt: r.joined_at }));
  }

  private async pageWhere(where: string, params: unknown[], order: string, offset: number, limit: number): Promise<[Webinar[], number]> {
    const n = params.length;
    // count(*) is a bigint, which the driver answers as a string
    const [rows, counted] = await Promise.all([
      sql<WebinarRow>(this.dataSource, `SELECT ${WEBINAR_COLUMNS} FROM webinars WHERE ${where} ORDER BY ${order} LIMIT $${n + 1} OFFSET $${n + 2}`, [
        ...params,
        limit,
        offset,
      ]),
      sqlOne<{ total: string }>(this.dataSource, `SELECT count(*) AS total FROM webinars WHERE ${where}`, params),
    ]);
    return [rows.map(toWebinar), Number(counted!.total)];
  }
}
