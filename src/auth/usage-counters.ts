import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { PeriodicTask } from '../common/periodic-task';
import type { Mode } from '../common/scope';
import { RedisService } from '../redis/redis.service';
import { UsageCountersRepository } from './usage-counters.repository';

/** How often counted calls are written to PostgreSQL: at most this much usage is forgotten when Redis loses its data. */
export const USAGE_FLUSH_MS = 2000;

export interface Counter {
  partnerId: number;
  mode: Mode;
  month: string;
}

/**
 * The monthly quota's record in PostgreSQL (usage_counters), behind the Redis counter that does the atomic counting.
 * Counters this process touched are copied every USAGE_FLUSH_MS (never lowering a stored count, so instances and a
 * restored counter cannot move it back); a counter missing from Redis is restored from the stored count.
 */
@Injectable()
export class UsageCounters implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(UsageCounters.name);
  private touched = new Map<string, Counter>();
  private readonly restoring = new Map<string, Promise<void>>();
  // Every instance writes the greatest count it saw, so flushes need no jitter to stay apart.
  private readonly flushLoop = new PeriodicTask({ name: UsageCounters.name, intervalMs: USAGE_FLUSH_MS, jitter: 0, unref: true }, () => this.flush());

  constructor(
    private readonly repo: UsageCountersRepository,
    private readonly redis: RedisService,
  ) {}

  onApplicationBootstrap(): void {
    this.flushLoop.start();
  }

  /** A last flush while PostgreSQL and Redis are still open. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.flushLoop.stop();
    await this.flush();
  }

  /** Remembers that this counter moved, for the next flush. */
  touch(key: string, counter: Counter): void {
    this.touched.set(key, counter);
  }

  /**
   * Puts a missing Redis counter back at the stored count (SET NX: a counter another instance restored, or that
   * started counting meanwhile, is kept). Concurrent callers for one counter share one restore.
   */
  restore(key: string, counter: Counter, ttlSeconds: number): Promise<void> {
    let pending = this.restoring.get(key);
    if (!pending) {
      pending = this.repo
        .calls(counter)
        .then(async (calls) => {
          await this.redis.client.set(key, calls, 'EX', ttlSeconds, 'NX');
        })
        .finally(() => this.restoring.delete(key));
      this.restoring.set(key, pending);
    }
    return pending;
  }

  /** Copies the touched counters to PostgreSQL; on failure they stay touched for the next try. */
  async flush(): Promise<void> {
    if (!this.touched.size) return;
    const batch = this.touched;
    this.touched = new Map();
    try {
      const keys = [...batch.keys()];
      const values = await this.redis.client.mget(...keys);
      const rows = keys.flatMap((key, i) => (values[i] === null ? [] : [{ ...batch.get(key)!, calls: Number(values[i]) }]));
      if (!rows.length) return;
      await this.repo.store(rows);
    } catch (err) {
      for (const [key, counter] of batch) if (!this.touched.has(key)) this.touched.set(key, counter);
      this.logger.warn({ err: (err as Error).message, counters: batch.size }, 'Writing usage to PostgreSQL failed; retrying');
    }
  }
}
