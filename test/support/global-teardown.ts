import Redis from 'ioredis';
import { Client } from 'pg';

export default async function globalTeardown(): Promise<void> {
  // Named by two projects, like the set-up: the first call cleans up, the second finds nothing left to do.
  if (!process.env.PA_TEST_RUN) return;
  delete process.env.PA_TEST_RUN;
  if (process.env.KEEP_TEST_DB !== 'true' && process.env.DATABASE_URL?.includes('partner_api_test_')) {
    await dropRunDatabases(process.env.DATABASE_URL);
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

/**
 * The run's template and every database named after it: each file drops its copy when it ends, but one whose worker
 * was killed leaves its copy, and some files make further databases of their own (migrations, outages).
 */
async function dropRunDatabases(templateUrl: string): Promise<void> {
  const template = decodeURIComponent(new URL(templateUrl).pathname.slice(1));
  const maintenance = new URL(templateUrl);
  maintenance.pathname = '/postgres';
  const client = new Client({ connectionString: maintenance.toString() });
  await client.connect();
  try {
    const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
    const { rows } = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE starts_with(datname, $1 || '_')`, [template]);
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS ${quote(datname)} WITH (FORCE)`);
    await client.query(`ALTER DATABASE ${quote(template)} WITH IS_TEMPLATE false`).catch(() => undefined);
    await client.query(`DROP DATABASE IF EXISTS ${quote(template)} WITH (FORCE)`);
  } finally {
    // Teardown runs in jest's own process: a connection left open there would keep it from exiting.
    await client.end();
  }
}
