import Redis from 'ioredis';
import { Client } from 'pg';
import type { Logger as PinoLogger } from 'pino';
import { clientSql } from './common/database';
import { errorMessage } from './common/error-message';
import type { AppConfig } from './config/config';

/** Back-off between tries: from the first delay, doubled each time, up to the last; each with up to 20 % jitter. */
export interface WaitOptions {
  firstDelayMs: number;
  maxDelayMs: number;
}

const DEFAULT_WAIT: WaitOptions = { firstDelayMs: 500, maxDelayMs: 10_000 };
const CONNECT_TIMEOUT_MS = 3000;

/**
 * Waits until PostgreSQL and Redis both answer, retrying with back-off and logging each try, so that an API or a worker
 * started before its dependencies (a host booting, a database failing over) waits for them instead of exiting and
 * leaving deliveries to whoever restarts it. Returns once both answered the same try.
 */
export async function waitForDependencies(config: Pick<AppConfig, 'databaseUrl' | 'redisUrl'>, log: PinoLogger, options = DEFAULT_WAIT): Promise<void> {
  let delay = options.firstDelayMs;
  for (let attempt = 1; ; attempt++) {
    const results = await Promise.all([
      pingPostgres(config.databaseUrl).then(
        () => null,
        (e: unknown) => ({ name: 'PostgreSQL', error: errorMessage(e) }),
      ),
      pingRedis(config.redisUrl).then(
        () => null,
        (e: unknown) => ({ name: 'Redis', error: errorMessage(e) }),
      ),
    ]);
    const down = results.filter((r) => r !== null);
    if (!down.length) {
      if (attempt > 1) log.info({ attempts: attempt }, 'PostgreSQL and Redis answer: starting');
      return;
    }
    const wait = Math.round(delay * (1 + Math.random() * 0.2));
    log.warn(
      { attempt, next_try_in_ms: wait, unavailable: down },
      `Waiting for ${down.map((d) => `${d.name} (${d.error})`).join(' and ')}: try ${attempt}, next in ${wait} ms`,
    );
    await new Promise((r) => setTimeout(r, wait));
    delay = Math.min(delay * 2, options.maxDelayMs);
  }
}

/** Connects to the server's maintenance database (the app's own may not exist yet: it is created next) and runs SELECT 1. */
async function pingPostgres(databaseUrl: string): Promise<void> {
  const maintenance = new URL(databaseUrl);
  maintenance.pathname = '/postgres';
  const client = new Client({ connectionString: maintenance.toString(), connectionTimeoutMillis: CONNECT_TIMEOUT_MS, query_timeout: CONNECT_TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await clientSql(client, 'SELECT 1');
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function pingRedis(redisUrl: string): Promise<void> {
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // The connection's own error says why (refused, unknown host); connect() itself only says the connection closed.
  let cause: unknown;
  redis.on('error', (e) => (cause ??= e));
  try {
    await redis.connect();
    await redis.ping();
  } catch (e) {
    throw cause ?? e;
  } finally {
    redis.disconnect();
  }
}
