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

  /** A batch of requests and their per-day counts, in one statement (one round trip per flush). */
  async insert(rows: RecordedRequest[]): Promise<void> {
    const counted = new Map<string, { partnerId: number; mode: Mode; day: string; calls: number }>();
    for (const r of rows) {
      if (!r.counted) continue;
      const day = r.at.toISOString().slice(0, 10);
      const key = `${r.partnerId}:${r.mode}:${day}`;
      const c = counted.get(key) ?? { partnerId: r.partnerId, mode: r.mode, day, calls: 0 };
      c.calls++;
      counted.set(key, c);
    }
    const days = [...counted.values()];
    await sql(
      this.dataSource,
      `WITH days AS (
         INSERT INTO usage_days AS u (partner_id, mode, day, calls)
         SELECT * FROM unnest($10::int[], $11::varchar[], $12::date[], $13::bigint[])
         ON CONFLICT (partner_id, mode, day) DO UPDATE SET calls = u.calls + EXCLUDED.calls)
       INSERT INTO request_log (partner_id, mode, method, path, status, duration_ms, request_id, key_prefix, created_at)
       SELECT * FROM unnest($1::int[], $2::varchar[], $3::varchar[], $4::varchar[], $5::smallint[], $6::int[], $7::varchar[], $8::varchar[], $9::timestamptz[])`,
      [
        rows.map((r) => r.partnerId),
        rows.map((r) => r.mode),
        rows.map((r) => r.method),
        rows.map((r) => r.path),
        rows.map((r) => r.status),
        rows.map((r) => r.durationMs),
        rows.map((r) => r.requestId),
        rows.map((r) => r.keyPrefix),
        rows.map((r) => r.at),
        days.map((d) => d.partnerId),
        days.map((d) => d.mode),
        days.map((d) => d.day),
        days.map((d) => d.calls),
      ],
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
