import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runMigrations } from '../../src/database/data-source';
import { ensureDatabase } from '../../src/database/ensure-database';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source';
import { preparingSql } from '../../src/search/semantic/embedded-semantic';
import { ensureWordVectors } from '../../src/search/semantic/word-vector-import';

/**
 * One PostgreSQL template database and one Redis key prefix per test run, migrated once here. Each test file then
 * runs on its own copy of the template and its own prefix under the run's (test/support/service-environment.js), so
 * the workers and sweeps a file starts see only that file's rows and jobs.
 */
export default async function globalSetup(): Promise<void> {
  // The integration and browser projects both name this set-up: the second call finds the run prepared.
  if (process.env.PA_TEST_RUN) return;
  const run = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const base = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  base.pathname = `/partner_api_test_${run}`;
  const env = {
    NODE_ENV: 'test',
    DATABASE_URL: base.toString(),
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0',
    REDIS_PREFIX: `pa-test-${run}`,
    PUBLIC_BASE_URL: 'http://localhost:3999',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    RUN_WORKER: 'true',
    AUTO_MIGRATE: 'false',
    LOAD_DEMO_CATALOGUE: 'false',
    // The sentence encoder costs 150 MB and ~0.7 s per process that loads it, and minutes of CPU to encode a catalogue:
    // only the files that test it turn it on.
    SEARCH_SENTENCE_ENCODER: 'false',
    // A loaded CI machine may take seconds to open a PostgreSQL connection: a wider request budget than production's
    // 5 s keeps that from turning into 503s. Tests of the budget itself set their own.
    REQUEST_TIMEOUT_MS: '15000',
    WEBHOOK_RETRY_DELAYS_MS: '300,300,300',
    WEBHOOK_TIMEOUT_MS: '2000',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    // Every test file calls from 127.0.0.1 and many send bad keys on purpose; the limit's own test sets 30.
    AUTH_FAILURE_LIMIT_PER_MINUTE: '1000000',
    // Likewise many files register partners from 127.0.0.1 within the hour; the limit's own test sets 5.
    REGISTRATION_LIMIT_PER_HOUR: '1000000',
  };
  // DATABASE_URL names the template here; the test environment points each file at its copy.
  Object.assign(process.env, env, { PA_TEST_RUN: run });
  await ensureDatabase(env.DATABASE_URL);
  await runMigrations(env.DATABASE_URL);
  // The embedded search engine's word vectors, imported once for the run (an app would import them on its first start).
  const db = new DataSource({ ...dataSourceOptions(env.DATABASE_URL), extra: { max: 1 } });
  await db.initialize();
  try {
    await ensureWordVectors(preparingSql(db));
    // Statistics travel with each copy, so no file's first queries wait for an autoanalyze.
    await db.query('ANALYZE');
  } finally {
    // Set-up runs in jest's own process: a pool left open there would keep it from exiting once the run fails.
    await db.destroy();
  }
  await markAsTemplate(env.DATABASE_URL);
  const dir = join(__dirname, '..', '.run');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'env.json'), JSON.stringify(env));
}

/**
 * Test files copy the template (CREATE DATABASE … TEMPLATE), which needs it free of sessions: refusing connections
 * keeps autovacuum and any stray client out, and makes a test that still reaches the template fail loudly.
 */
async function markAsTemplate(databaseUrl: string): Promise<void> {
  const maintenance = new URL(databaseUrl);
  maintenance.pathname = '/postgres';
  const client = new Client({ connectionString: maintenance.toString() });
  await client.connect();
  try {
    const name = decodeURIComponent(new URL(databaseUrl).pathname.slice(1)).replace(/"/g, '""');
    await client.query(`ALTER DATABASE "${name}" WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
  } finally {
    await client.end();
  }
}
