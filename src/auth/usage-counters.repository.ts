import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { sql, sqlOne } from '../common/database';
import { inScope, type Mode, scopeParams } from '../common/scope';

/** One partner's calls in one mode and month (YYYY-MM). */
export interface CounterValue {
  partnerId: number;
  mode: Mode;
  month: string;
  calls: number;
}

/** Every statement of the monthly usage record (usage_counters). */
@Injectable()
export class UsageCountersRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Writes the counters, never lowering a stored count (instances and a restored counter cannot move it back). */
  async store(rows: CounterValue[]): Promise<void> {
    await sql(
      this.dataSource,
      `INSERT INTO usage_counters AS u (partner_id, mode, month, calls)
       SELECT * FROM unnest($1::int[], $2::varchar[], $3::char(7)[], $4::bigint[])
       ON CONFLICT (partner_id, mode, month) DO UPDATE SET calls = GREATEST(u.calls, EXCLUDED.calls), updated_at = now()`,
      [rows.map((r) => r.partnerId), rows.map((r) => r.mode), rows.map((r) => r.month), rows.map((r) => r.calls)],
    );
  }

  /** The stored count of a partner's mode and month; 0 when none was stored. */
  async calls(counter: { partnerId: number; mode: Mode; month: string }): Promise<number> {
    // calls is a bigint, which pg returns as a string.
    const row = await sqlOne<{ calls: string }>(
      this.dataSource,
      `SELECT calls FROM usage_counters WHERE ${inScope()} AND month = $3`,
      scopeParams(counter, counter.month),
    );
    return row ? Number(row.calls) : 0;
  }
}
