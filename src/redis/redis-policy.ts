import type { Logger } from '@nestjs/common';
import type Redis from 'ioredis';

/**
 * Start-up check of what the service needs from Redis (it may lose its data, not evict keys). An evicting policy is a warning:
 * BullMQ needs `maxmemory-policy noeviction` (evicted job keys corrupt queues) and an evicted quota counter or
 * idempotency entry silently costs a PostgreSQL round trip, or worse. No persistence is only worth a note: the
 * service rebuilds what it needs from PostgreSQL (deliveries are swept, counters restored).
 */
export async function checkRedisPolicy(client: Redis, logger: Logger): Promise<void> {
  let settings: Record<string, string>;
  try {
    const entries = await Promise.all(
      ['maxmemory-policy', 'maxmemory', 'appendonly', 'save'].map(async (name) => {
        const [, value] = (await client.config('GET', name)) as string[];
        return [name, value ?? ''] as const;
      }),
    );
    settings = Object.fromEntries(entries);
  } catch (e) {
    logger.warn(
      { err: (e as Error).message },
      'Could not read the Redis configuration (CONFIG GET refused?): make sure maxmemory-policy is noeviction, as the queues require',
    );
    return;
  }
  const policy = settings['maxmemory-policy'];
  if (policy !== 'noeviction') {
    logger.warn(
      { maxmemory_policy: policy, maxmemory: settings.maxmemory },
      `Redis may evict keys (maxmemory-policy ${policy}): set maxmemory-policy noeviction. Evicted queue jobs, quota counters and idempotency entries are rebuilt from PostgreSQL only after a delay, and BullMQ does not support eviction.`,
    );
  }
  if (settings.appendonly !== 'yes' && !settings.save) {
    logger.log('Redis keeps no data across restarts (no AOF, no snapshots): after a restart, deliveries are re-enqueued and counters restored from PostgreSQL');
  }
}
