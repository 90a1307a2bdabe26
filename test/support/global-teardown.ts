import Redis from 'ioredis';
import { dropDatabase } from '../../src/database/ensure-database';

export default async function globalTeardown(): Promise<void> {
  // Named by two projects, like the set-up: the first call cleans up, the second finds nothing left to do.
  if (!process.env.PA_TEST_RUN) return;
  delete process.env.PA_TEST_RUN;
  if (process.env.KEEP_TEST_DB !== 'true' && process.env.DATABASE_URL?.includes('partner_api_test_')) {
    await dropDatabase(process.env.DATABASE_URL);
  }
  const prefix = process.env.REDIS_PREFIX;
  if (prefix?.startsWith('pa-test-')) {
    const redis = new Redis(process.env.REDIS_URL!);
    try {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        if (keys.length) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    } finally {
      // Teardown runs in jest's own process: a connection left open there would keep it from exiting.
      redis.disconnect();
    }
  }
}
