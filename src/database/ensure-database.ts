import { Client } from 'pg';
import { clientSql } from '../common/database';

/**
 * Creates the database named in DATABASE_URL when it does not exist yet and the role may create it,
 * so that `npm start` works on a fresh machine with nothing prepared.
 */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const target = new URL(databaseUrl);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!name) throw new Error('DATABASE_URL names no database');
  const maintenance = new URL(databaseUrl);
  maintenance.pathname = '/postgres';
  const client = new Client({ connectionString: maintenance.toString(), connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    if ((await clientSql(client, 'SELECT 1 FROM pg_database WHERE datname = $1', [name])).length) return;
    try {
      await clientSql(client, `CREATE DATABASE "${name.replace(/"/g, '""')}"`);
    } catch (e) {
      // Another process (the worker, a second instance) created it first.
      if ((e as { code?: string }).code !== '42P04') throw e;
    }
  } finally {
    await client.end();
  }
}

export async function dropDatabase(databaseUrl: string): Promise<void> {
  const target = new URL(databaseUrl);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  const maintenance = new URL(databaseUrl);
  maintenance.pathname = '/postgres';
  const client = new Client({ connectionString: maintenance.toString() });
  await client.connect();
  try {
    await clientSql(client, `DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
