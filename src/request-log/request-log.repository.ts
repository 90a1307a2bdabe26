import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { affected, sql, sqlOne } from '../common/database';
import { inScope, type Mode, type Scope, scopeParams } from '../common/scope';

/** One finished keyed request, as the recorder buffers it. */
export interface RecordedRequest {
  partnerId: number;
  mode: Mode;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  requestId: string;
  keyPrefix: string | null;
  at: Date;
  /** Whether it counted against the monthly quota (a partner key's call; an admin acting for the partner does not). */
  counted: boolean;
}

/** A request_log row as the page reads it (id is a bigint, which the driver answers as a string). */
export interface RequestLogRow {
  id: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  request_id: string;
  key_prefix: string | null;
  created_at: Date;
}

/** A status filter: one code, or a class ("4xx" is 400–499). */
export interface StatusRange {
  min: number;
  max: number;
}

/** Every query of the request log and the calls-per-day counts. */
@Injectable()
export class RequestLogRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * A batch of requests and their per-day counts, in one statement (one round trip per flush). The batch goes as one
   * JSON parameter, which PostgreSQL reads into rows: one native JSON.stringify here instead of the driver escaping
   * nine array parameters element by element, and the calls per day (UTC) are summed by the statement itself. It is
   * read as `json`, not `jsonb`: each value is read once, so converting the whole batch to jsonb first only costs
   * PostgreSQL (about 2 of 17 µs per row).
   */
  async insert(rows: RecordedRequest[]): Promise<void> {
    await sql(
      this.dataSource,
      `WITH r AS (
         SELECT * FROM json_to_recordset($1::json) AS r("partnerId" int, mode varchar, method varchar, path varchar, status smallint,
           "durationMs" int, "requestId" varchar, "keyPrefix" varchar, at timestamptz, counted boolean)),
       days AS (
         INSERT INTO usage_days AS u (partner_id, mode, day, calls)
         SELECT "partnerId", mode, (at AT TIME ZONE 'UTC')::date, count(*) FROM r WHERE counted GROUP BY 1, 2, 3
         ON CONFLICT (partner_id, mode, day) DO UPDATE SET calls = u.calls + EXCLUDED.calls)
       INSERT INTO request_log (partner_id, mode, method, path, status, duration_ms, request_id, key_prefix, created_at)
       SELECT "partnerId", mode, method, path, status, "durationMs", "requestId", "keyPrefix", at FROM r`,
      [JSON.stringify(rows)],
    );
  }

  /** The scope's requests, newest first, optionally of one status or class, with the total. */
  async page(scope: Scope, status: StatusRange | null, offset: number, limit: number): Promise<[RequestLogRow[], number]> {
    const params = scopeParams(scope, status?.min ?? null, status?.max ?? null);
    const where = `${inScope()} AND ($3::int IS NULL OR status BETWEEN $3 AND $4)`;
    const rows = await sql<RequestLogRow>(
      this.dataSource,
      `SELECT id, method, path, status, duration_ms, request_id, key_prefix, created_at FROM request_log
        WHERE ${where} ORDER BY created_at DESC, id DESC OFFSET ${offset} LIMIT ${limit}`,
      params,
    );
    // An aggregate without GROUP BY: always one row.
    const { n } = (await sqlOne<{ n: number }>(this.dataSource, `SELECT count(*)::int AS n FROM request_log WHERE ${where}`, params))!;
    return [rows, n];
  }

  /** Calls per day (UTC, 'YYYY-MM-DD') of the scope from `from` (inclusive) to `to` (exclusive). */
  usageDays(scope: Scope, from: string, to: string): Promise<Array<{ day: string; calls: number }>> {
    return sql<{ day: string; calls: number }>(
      this.dataSource,
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, calls::int AS calls FROM usage_days
        WHERE ${inScope()} AND day >= $3::date AND day < $4::date ORDER BY day`,
      scopeParams(scope, from, to),
    );
  }

  /** Deletes requests older than `before` and day counts older than `daysBefore`; how many requests went. */
  async prune(before: Date, daysBefore: string): Promise<number> {
    await affected(this.dataSource, `DELETE FROM usage_days WHERE day < $1::date`, [daysBefore]);
    return affected(this.dataSource, `DELETE FROM request_log WHERE created_at < $1`, [before]);
  }
}
