import { Injectable } from '@nestjs/common';
import { RedisService } from '../redis/redis.service';
import type { Mode } from '../common/scope';
import { DomainError } from '../common/errors';
import { Counter, UsageCounters } from './usage-counters';

/**
 * One atomic Redis script per keyed request: the per-key rate window first, then the monthly quota.
 * A call refused by either is not counted against the quota, and the quota check-and-increment is a
 * single step, so with N calls left and more than N in parallel exactly N pass, on any number of instances.
 * A missing quota counter (Redis lost its data, or a new month) counts nothing and says so ({3}): the caller
 * restores it from PostgreSQL and runs the script again.
 */
export const CONSUME_SCRIPT = `
if tonumber(ARGV[2]) >= 0 and redis.call('EXISTS', KEYS[2]) == 0 then return {3, 0, 0} end
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], 2000) end
if n > tonumber(ARGV[1]) then return {0, n, 0} end
local quota = tonumber(ARGV[2])
if quota < 0 then return {1, n, -1} end
local used = tonumber(redis.call('GET', KEYS[2]) or '0')
if used >= quota then return {2, n, used} end
used = redis.call('INCR', KEYS[2])
if used == 1 then redis.call('EXPIRE', KEYS[2], tonumber(ARGV[3])) end
return {1, n, used}
`;

/**
 * The rest of a call that costs more than one (a bulk job: one call per row), after the guard counted the call itself:
 * either all ARGV[2] extra calls fit in the quota and are counted, or none are and the call's own count is taken back
 * (a refused call does not count). Answers {1, used} or {0, used before the call}.
 */
const EXTRA_CALLS_SCRIPT = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local extra = tonumber(ARGV[2])
if used + extra > tonumber(ARGV[1]) then
  if used > 0 then used = redis.call('DECR', KEYS[1]) end
  return {0, used}
end
used = redis.call('INCRBY', KEYS[1], extra)
if redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3])) end
return {1, used}
`;

/** Fixed windows for unauthenticated per-IP limits (registration, certificate verification). */
const WINDOW_SCRIPT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], tonumber(ARGV[1])) end
return {n, redis.call('TTL', KEYS[1])}
`;

export type UsageOutcome =
  | { kind: 'ok'; rate: RateState; quota: QuotaState | null }
  | { kind: 'rate_limited'; rate: RateState }
  | { kind: 'quota_exceeded'; rate: RateState; quota: QuotaState };

export interface RateState {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

export interface QuotaState {
  limit: number;
  used: number;
  remaining: number;
  /** Unix seconds when the month (UTC) ends. */
  reset: number;
}

export function monthOf(date = new Date()): string {
  return date.toISOString().slice(0, 7);
}

export function monthEnd(date = new Date()): number {
  return Math.floor(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) / 1000);
}

/** What a call's counting derives from the clock; the same for every call within one second. */
interface Clock {
  second: number;
  month: string;
  /** Unix seconds when the month (UTC) ends. */
  reset: number;
  /** The quota counter's lifetime: the month's rest and a week. */
  ttl: number;
}

/** The Redis keys a partner key's calls count under this month, and its counter's record. */
interface KeyCounting {
  partnerId: number;
  mode: Mode;
  month: string;
  /** The rate window's key without its second. */
  ratePrefix: string;
  quotaKey: string;
  counter: Counter;
}

/** Partner keys whose counting is remembered; more are forgotten all at once (each costs a few strings to rebuild). */
const COUNTING_CAPACITY = 10_000;

@Injectable()
export class UsageLimiter {
  // Every keyed request is counted: what does not change from one call to the next is built once, not per call.
  private clock: Clock = { second: -1, month: '', reset: 0, ttl: 0 };
  private readonly counting = new Map<string, KeyCounting>();
  private readonly consumeScript: (...keysAndArgs: Array<string | number>) => Promise<[number, number, number]>;
  private readonly windowScript: (...keysAndArgs: Array<string | number>) => Promise<[number, number]>;
  private readonly extraCallsScript: (...keysAndArgs: Array<string | number>) => Promise<[number, number]>;

  constructor(
    private readonly redis: RedisService,
    private readonly counters: UsageCounters,
  ) {
    this.consumeScript = redis.script(CONSUME_SCRIPT, 2);
    this.windowScript = redis.script(WINDOW_SCRIPT, 1);
    this.extraCallsScript = redis.script(EXTRA_CALLS_SCRIPT, 1);
  }

  /**
   * A call that costs `calls` calls (one per bulk row), of which the guard has counted one: counts the rest when the
   * quota covers them all, otherwise counts nothing (taking back the call's own) and answers 401
   * monthly_quota_exceeded up front. Answers the quota after the call, or null on unlimited plans.
   */
  async consumeCalls(partnerId: number, mode: Mode, monthlyQuota: number | null, calls: number, what: string): Promise<QuotaState | null> {
    if (monthlyQuota === null) return null;
    const now = new Date();
    const reset = monthEnd(now);
    const month = monthOf(now);
    const quotaKey = this.quotaKey(partnerId, mode, month);
    const [ok, used] = await this.extraCallsScript(quotaKey, monthlyQuota, calls - 1, reset - Math.floor(now.getTime() / 1000) + 7 * 86400);
    const remaining = Math.max(0, monthlyQuota - used);
    if (!ok) {
      throw new DomainError(
        'monthly_quota_exceeded',
        { limit: monthlyQuota, remaining, rows: calls, reset_at: new Date(reset * 1000).toISOString() },
        `This request counts as ${calls} calls (${what}), and your plan has ${remaining} calls left this month.`,
      );
    }
    this.counters.touch(quotaKey, { partnerId, mode, month });
    return { limit: monthlyQuota, used, remaining, reset };
  }

  /** Takes back calls counted for a request that then failed (a refused call does not count). */
  async giveBack(partnerId: number, mode: Mode, calls: number): Promise<void> {
    await this.redis.client.decrby(this.quotaKey(partnerId, mode), calls);
  }

  quotaKey(partnerId: number, mode: Mode, month = monthOf()): string {
    return this.redis.key('quota', partnerId, mode, month);
  }

  async consume(keyId: string, partnerId: number, mode: Mode, ratePerSecond: number, monthlyQuota: number | null): Promise<UsageOutcome> {
    const { second, month, reset, ttl } = this.clockAt(Date.now());
    const k = this.countingOf(keyId, partnerId, mode, month);
    const run = () => this.consumeScript(k.ratePrefix + second, k.quotaKey, ratePerSecond, monthlyQuota ?? -1, ttl);
    let [status, n, used] = await run();
    for (let restores = 0; status === 3; restores++) {
      if (restores === 3) throw new DomainError('service_unavailable');
      await this.counters.restore(k.quotaKey, k.counter, ttl);
      [status, n, used] = await run();
    }
    if (status === 1 && monthlyQuota !== null) this.counters.touch(k.quotaKey, k.counter);
    const rate: RateState = { limit: ratePerSecond, remaining: Math.max(0, ratePerSecond - n), resetSeconds: 1 };
    if (status === 0) return { kind: 'rate_limited', rate };
    const quota = monthlyQuota === null ? null : { limit: monthlyQuota, used, remaining: Math.max(0, monthlyQuota - used), reset };
    if (status === 2) return { kind: 'quota_exceeded', rate, quota: quota! };
    return { kind: 'ok', rate, quota };
  }

  private clockAt(nowMs: number): Clock {
    const second = Math.floor(nowMs / 1000);
    if (second !== this.clock.second) {
      const now = new Date(second * 1000);
      const reset = monthEnd(now);
      this.clock = { second, month: monthOf(now), reset, ttl: reset - second + 7 * 86400 };
    }
    return this.clock;
  }

  private countingOf(keyId: string, partnerId: number, mode: Mode, month: string): KeyCounting {
    const known = this.counting.get(keyId);
    if (known && known.month === month && known.partnerId === partnerId && known.mode === mode) return known;
    if (this.counting.size >= COUNTING_CAPACITY) this.counting.clear();
    const counter: Counter = { partnerId, mode, month };
    const k = { partnerId, mode, month, ratePrefix: `${this.redis.key('rate', keyId)}:`, quotaKey: this.quotaKey(partnerId, mode, month), counter };
    this.counting.set(keyId, k);
    return k;
  }

  async used(partnerId: number, mode: Mode, month = monthOf()): Promise<number> {
    return Number((await this.redis.client.get(this.quotaKey(partnerId, mode, month))) ?? 0);
  }

  /** Counts a hit in a fixed window; returns whether it is within the limit and when the window resets. */
  async window(name: string, subject: string, limit: number, windowSeconds: number): Promise<{ allowed: boolean; retryAfter: number }> {
    const [n, ttl] = await this.windowScript(this.redis.key('win', name, subject), windowSeconds);
    return { allowed: n <= limit, retryAfter: Math.max(1, ttl) };
  }
}
