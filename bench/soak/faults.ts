import { isDeepStrictEqual } from 'node:util';
import type { RedisServer } from '../../test/support/redis-server';
import type { TcpProxy } from '../../test/support/tcp-proxy';
import type { Check } from './invariants';
import type { Stats } from './traffic';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface FaultWindow {
  name: string;
  from: number;
  to: number;
}

/** Quota counters of limited plans, by partner id, read straight from Redis. */
export type QuotaSnapshot = Map<number, number>;

/**
 * The dependency faults of the soak (contract section 20): PostgreSQL taken away and frozen through a TCP proxy in
 * front of it (every service process connects through it), the private Redis emptied (FLUSHDB) and frozen (SIGSTOP).
 */
export class Faults {
  readonly windows: FaultWindow[] = [];
  wipe?: { at: number; before: QuotaSnapshot };

  constructor(
    private readonly pg: TcpProxy,
    private readonly redis: RedisServer,
    private readonly redisPrefix: string,
  ) {}

  async postgresOutage(ms: number): Promise<void> {
    await this.during(
      'PostgreSQL stopped',
      ms,
      () => this.pg.stop(),
      () => this.pg.start().then(() => undefined),
    );
  }

  async postgresFreeze(ms: number): Promise<void> {
    await this.during(
      'PostgreSQL frozen',
      ms,
      () => this.pg.pause(),
      () => this.pg.resume(),
    );
  }

  async redisFreeze(ms: number): Promise<void> {
    await this.during(
      'Redis frozen (SIGSTOP)',
      ms,
      () => this.redis.freeze(),
      () => this.redis.thaw(),
    );
  }

  /** Empties Redis (queues, counters, idempotency records, caches) after noting the quota counters. */
  async redisWipe(): Promise<void> {
    const before = await this.quotaCounters();
    const at = Date.now();
    await this.redis.flush();
    this.wipe = { at, before };
    this.windows.push({ name: 'Redis emptied (FLUSHDB)', from: at, to: at });
  }

  async quotaCounters(): Promise<QuotaSnapshot> {
    const keys = await this.redis.client.keys(`${this.redisPrefix}:quota:*`);
    const values = keys.length ? await this.redis.client.mget(...keys) : [];
    return new Map(keys.map((k, i) => [Number(k.split(':')[2]), Number(values[i])]));
  }

  /**
   * True when a request sent at `at` may have met a dependency that was down or frozen: it was still running when a
   * fault began (requests last at most `inFlightMs`), or was sent within `graceMs` after a fault ended.
   */
  affected(at: number, inFlightMs: number, graceMs: number): boolean {
    return this.windows.some((w) => at >= w.from - inFlightMs && at <= w.to + graceMs);
  }

  describe(start: number): string {
    return this.windows
      .map((w) => `${w.name} at ${Math.round((w.from - start) / 1000)} s${w.to > w.from ? ` for ${Math.round((w.to - w.from) / 1000)} s` : ''}`)
      .join('; ');
  }

  private async during(name: string, ms: number, begin: () => unknown, end: () => Promise<void> | void): Promise<void> {
    const from = Date.now();
    await begin();
    try {
      await sleep(ms);
    } finally {
      await end();
      this.windows.push({ name, from, to: Date.now() });
    }
  }
}

/**
 * The monthly quota survived the Redis wipe: per limited partner, the counter at the end is at least the one before
 * the wipe, and the calls it lost are no more than those made in the few seconds before it (usage reaches
 * PostgreSQL every 2 s). Refused calls (401, 403, 429) and 503s are left out of the count of calls after the wipe,
 * which can only make the loss look smaller than it was if a 503 had been counted.
 */
export function quotaCheck(stats: Stats, wipe: Faults['wipe'], end: QuotaSnapshot, partnerOfKey: Map<string, number>): Check {
  if (!wipe) return { name: 'quota survives the Redis wipe', value: 'no wipe happened', ok: false };
  const counted = (s: number) => ![401, 403, 429, 503].includes(s);
  let worst = '';
  let ok = wipe.before.size > 0;
  let totalLost = 0;
  let totalBefore = 0;
  for (const [partnerId, before] of wipe.before) {
    const keys = [...partnerOfKey].filter(([, p]) => p === partnerId).map(([k]) => k);
    const calls = stats.calls.filter((c) => keys.includes(c.apiKey) && counted(c.status));
    const after = calls.filter((c) => c.at >= wipe.at).length;
    const lastSeconds = calls.filter((c) => c.at < wipe.at && c.at >= wipe.at - 3000).length;
    const now = end.get(partnerId) ?? 0;
    const lost = before + after - now;
    totalLost += Math.max(0, lost);
    totalBefore += before;
    if (now < before || lost > lastSeconds) {
      ok = false;
      worst = ` partner ${partnerId}: ${before} before, ${now} at the end, ${after} calls after, ${lost} lost > ${lastSeconds} in the last 3 s`;
    }
  }
  return {
    name: 'quota survives the Redis wipe',
    value: `${wipe.before.size} counted partners, ${totalBefore} calls before the wipe, ${totalLost} forgotten (bound: calls of the last 3 s)${worst}`,
    ok,
  };
}

/**
 * Idempotency intact: every request sent with an Idempotency-Key whose answer was kept (not a 5xx, not a 409 in
 * progress) is sent again after every fault; each must come back as the replay of the original answer, so none was
 * applied twice, whether its record was made before or after Redis was emptied.
 */
export async function idempotencyCheck(stats: Stats, apis: string[], wipeAt: number | undefined): Promise<Check> {
  const replayable = stats.keyed.filter(
    (c) => c.status < 500 && !(c.status === 409 && (c.response as { error?: { code?: string } })?.error?.code === 'idempotency_request_in_progress'),
  );
  let mismatched = 0;
  let example = '';
  for (let i = 0; i < replayable.length; i++) {
    const c = replayable[i];
    const res = await fetch(apis[i % apis.length] + c.path, {
      method: 'POST',
      headers: { 'x-api-key': c.apiKey, 'content-type': 'application/json', 'idempotency-key': c.key },
      body: JSON.stringify(c.body),
    });
    const body: unknown = await res.json();
    if (res.status !== c.status || res.headers.get('idempotent-replayed') !== 'true' || !isDeepStrictEqual(body, c.response)) {
      mismatched++;
      example ||= ` (e.g. ${c.path}: ${c.status} then ${res.status} ${JSON.stringify(body).slice(0, 160)})`;
    }
  }
  const beforeWipe = wipeAt === undefined ? 0 : replayable.filter((c) => c.at < wipeAt).length;
  return {
    name: 'idempotent retries replay, never apply twice',
    value: `${replayable.length} keyed requests replayed (${beforeWipe} made before the Redis wipe), ${mismatched} not replayed${example}`,
    ok: replayable.length > 0 && mismatched === 0,
  };
}
