import type { EventEmitter } from 'node:events';
import { DataSource, DataSourceOptions } from 'typeorm';
import { sql } from '../common/database';
import { MIGRATIONS } from '../../migrations';

/**
 * Pool and time-out settings shared by the app and the migration runner: fail fast when PostgreSQL is away or stuck.
 * A statement may run for the request budget less one second (statement_timeout, on the server); the client gives
 * up waiting half a second later (query_timeout, for a server that does not answer at all), so a request whose
 * database is stuck gets its 503 within REQUEST_TIMEOUT_MS. Waiting for a connection (a new one, or a free one from a
 * busy pool) may take 30 % of the budget, at least 1.5 s.
 */
export function dataSourceOptions(databaseUrl: string, poolSize = 20, requestTimeoutMs = 5000): DataSourceOptions {
  const statementTimeoutMs = Math.max(500, requestTimeoutMs - 1000);
  const connectionTimeoutMs = Math.max(1500, Math.round(requestTimeoutMs * 0.3));
  return {
    type: 'postgres',
    url: databaseUrl,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
    extra: {
      max: poolSize,
      connectionTimeoutMillis: connectionTimeoutMs,
      idleTimeoutMillis: 30_000,
      statement_timeout: statementTimeoutMs,
      query_timeout: statementTimeoutMs + 500,
      application_name: 'partner-api',
    },
  };
}

/**
 * A backend terminated while its client is checked out (pg_terminate_backend, a fast shutdown, a failover) makes pg
 * emit 'error' on that client. TypeORM listens only while a query runner holds the client, and pg-pool only while it
 * is idle, so a FATAL message arriving after the runner let go was an unhandled 'error' event: the process crashed.
 * Every client gets a listener when first checked out; the failure itself reaches the caller through its query.
 */
export function guardClientErrors(ds: DataSource): DataSource {
  const pool = (ds.driver as unknown as { master?: Pick<EventEmitter, 'on'> }).master;
  const guarded = new WeakSet<EventEmitter>();
  pool?.on('acquire', (client: EventEmitter) => {
    if (guarded.has(client)) return;
    guarded.add(client);
    client.on('error', () => undefined);
  });
  return ds;
}

const MIGRATION_LOCK = 7_204_211;

/** Runs pending migrations; an advisory lock keeps the API and the worker from migrating at once. */
export async function runMigrations(databaseUrl: string): Promise<string[]> {
  const ds = new DataSource({ ...dataSourceOptions(databaseUrl), extra: { max: 2, connectionTimeoutMillis: 5000 } });
  await ds.initialize();
  const runner = ds.createQueryRunner();
  await runner.connect();
  try {
    await sql(runner, 'SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const ran = await ds.runMigrations({ transaction: 'each' });
    return ran.map((m) => m.name);
  } finally {
    await sql(runner, 'SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await runner.release();
    await ds.destroy();
  }
}
