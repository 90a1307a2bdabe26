import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { affected, Queryable, sql, sqlOne } from '../common/database';

export interface AttendeePresence {
  watchedSeconds: number;
  connected: boolean;
}

export interface PresenceSummary {
  peakConcurrent: number;
  totalWatchSeconds: number;
}

/** The media sessions of webinar viewers (webinar_media_sessions): what presence is measured from. */
@Injectable()
export class PresenceRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async opened(webinarId: string, userId: number | null, sessionId: string, at: Date): Promise<void> {
    await sql(
      this.dataSource,
      `INSERT INTO webinar_media_sessions (webinar_id, user_id, session_id, connected_at) VALUES ($1, $2, $3, $4) ON CONFLICT (session_id) DO NOTHING`,
      [webinarId, userId, sessionId, at],
    );
  }

  /** Closes a session; one already closed (by the end of its webinar) keeps its first close. */
  async closed(sessionId: string, at: Date): Promise<void> {
    await affected(
      this.dataSource,
      `UPDATE webinar_media_sessions SET disconnected_at = GREATEST($2::timestamptz, connected_at) WHERE session_id = $1 AND disconnected_at IS NULL`,
      [sessionId, at],
    );
  }

  async closeAll(db: Queryable, webinarId: string, at: Date): Promise<void> {
    await affected(
      db,
      `UPDATE webinar_media_sessions SET disconnected_at = GREATEST($2::timestamptz, connected_at) WHERE webinar_id = $1 AND disconnected_at IS NULL`,
      [webinarId, at],
    );
  }

  /** Watched seconds (closed sessions plus open ones up to now) and whether a session is open, per attendee. */
  async byAttendee(webinarId: string, userIds: number[]): Promise<Map<number, AttendeePresence>> {
    const rows = await sql<{ user_id: number; watched: number; connected: boolean }>(
      this.dataSource,
      `SELECT user_id,
              floor(sum(extract(epoch FROM COALESCE(disconnected_at, now()) - connected_at)))::int AS watched,
              bool_or(disconnected_at IS NULL) AS connected
       FROM webinar_media_sessions WHERE webinar_id = $1 AND user_id = ANY($2::int[]) GROUP BY user_id`,
      [webinarId, userIds],
    );
    return new Map(rows.map((r) => [r.user_id, { watchedSeconds: Math.max(0, r.watched), connected: r.connected }]));
  }

  /**
   * Peak concurrency and total attendee watch time of a webinar whose sessions are all closed. An attendee with two
   * overlapping sessions (two tabs) counts once: their sessions are merged into spans first; an anonymous session
   * is its own viewer. Ties put a close before an open, so back-to-back sessions never count twice.
   */
  async summary(db: Queryable, webinarId: string): Promise<PresenceSummary> {
    const row = await sqlOne<{ peak: number; total: number }>(
      db,
      `WITH s AS (
         SELECT COALESCE(user_id::text, 'anon:' || session_id) AS viewer, user_id, connected_at AS t0, COALESCE(disconnected_at, now()) AS t1
         FROM webinar_media_sessions WHERE webinar_id = $1
       ), ordered AS (
         SELECT *, max(t1) OVER (PARTITION BY viewer ORDER BY t0, t1 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end FROM s
       ), islands AS (
         SELECT *, sum(CASE WHEN prev_end IS NULL OR t0 > prev_end THEN 1 ELSE 0 END) OVER (PARTITION BY viewer ORDER BY t0, t1) AS island FROM ordered
       ), spans AS (
         SELECT viewer, min(t0) AS t0, max(t1) AS t1 FROM islands GROUP BY viewer, island
       ), edges AS (
         SELECT t0 AS t, 1 AS d FROM spans UNION ALL SELECT t1, -1 FROM spans
       ), running AS (
         SELECT sum(d) OVER (ORDER BY t, d ROWS UNBOUNDED PRECEDING) AS n FROM edges
       )
       SELECT COALESCE((SELECT max(n) FROM running), 0)::int AS peak,
              COALESCE((SELECT sum(extract(epoch FROM t1 - t0)) FROM s WHERE user_id IS NOT NULL), 0)::float8 AS total`,
      [webinarId],
    );
    return { peakConcurrent: row!.peak, totalWatchSeconds: row!.total };
  }
}
