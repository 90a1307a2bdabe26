import { Injectable } from '@nestjs/common';
import { pageOf } from '../common/pagination';
import type { Scope } from '../common/scope';
import { RequestLogRepository, StatusRange } from './request-log.repository';

/** A request as the dashboard lists it. */
export interface RequestView {
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  request_id: string;
  key_prefix: string | null;
  created_at: string;
}

/** "2xx"…"5xx" or one code 100–599; null for anything else. */
export function parseStatusFilter(value: string | undefined): StatusRange | null {
  if (!value) return null;
  const cls = /^([1-5])xx$/i.exec(value);
  if (cls) return { min: Number(cls[1]) * 100, max: Number(cls[1]) * 100 + 99 };
  if (/^[1-5]\d\d$/.test(value)) return { min: Number(value), max: Number(value) };
  return null;
}

/** The recent keyed requests of a partner and mode, and their calls per day. */
@Injectable()
export class RequestLogService {
  constructor(private readonly repo: RequestLogRepository) {}

  async recent(scope: Scope, status: StatusRange | null, page: { page: number; limit: number }) {
    const [rows, total] = await this.repo.page(scope, status, (page.page - 1) * page.limit, page.limit);
    const requests: RequestView[] = rows.map((r) => ({
      method: r.method,
      path: r.path,
      status: r.status,
      duration_ms: r.duration_ms,
      request_id: r.request_id,
      key_prefix: r.key_prefix,
      created_at: r.created_at.toISOString(),
    }));
    return pageOf('requests', requests, total, page);
  }

  /** Every day of the month `YYYY-MM` (UTC) up to its last day, with its counted calls (0 for a day without any). */
  async usageByDay(scope: Scope, month: string): Promise<Array<{ day: string; calls: number }>> {
    const [year, m] = month.split('-').map(Number);
    const days = new Date(Date.UTC(year, m, 0)).getUTCDate();
    const next = new Date(Date.UTC(year, m, 1)).toISOString().slice(0, 10);
    const counts = new Map((await this.repo.usageDays(scope, `${month}-01`, next)).map((r) => [r.day, r.calls]));
    return Array.from({ length: days }, (_, i) => {
      const day = `${month}-${String(i + 1).padStart(2, '0')}`;
      return { day, calls: counts.get(day) ?? 0 };
    });
  }
}
