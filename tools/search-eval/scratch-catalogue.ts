import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { CatalogueCache } from '../../src/courses/catalogue-cache';
import { CatalogueLoader } from '../../src/courses/catalogue/catalogue-loader.service';
import { dataSourceOptions, runMigrations } from '../../src/database/data-source';
import { dropDatabase, ensureDatabase } from '../../src/database/ensure-database';
import { preparingSql } from '../../src/search/semantic/embedded-semantic';
import { ensureWordVectors } from '../../src/search/semantic/word-vector-import';
import { SEARCH_DOCUMENTS_INDEX } from '../../src/search/search.store';

export interface ScratchCatalogue {
  url: string;
  db: DataSource;
  drop(): Promise<void>;
}

// The loader only needs the cache to tell other instances; a scratch database has none.
const noCache = { invalidate: () => Promise.resolve() } as unknown as CatalogueCache;

export interface ScratchOptions {
  /** Import the embedded engine's word vectors (default true). */
  wordVectors?: boolean;
  /**
   * A migrated database to copy (CREATE DATABASE … TEMPLATE) instead of creating an empty one and migrating it: the
   * test run's template, which also holds the word vectors, so a test file skips seconds of migrations and the ~10 s
   * import. It must have no sessions while it is copied.
   */
  template?: string;
}

/**
 * A throw-away database (migrated, real catalogue and the embedded engine's word vectors loaded) for the eval and the benchmark. The server is taken from
 * SEARCH_EVAL_DATABASE_URL or DATABASE_URL (any database name; a new one is created next to it and dropped after).
 */
export async function createScratchCatalogue(label: string, options: ScratchOptions = {}): Promise<ScratchCatalogue> {
  const base = new URL(options.template ?? process.env.SEARCH_EVAL_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  base.pathname = `/partner_api_${label}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const url = base.toString();
  if (options.template) await copyDatabase(options.template, url);
  else await ensureDatabase(url);
  // A no-op on a copy of an up-to-date template; it brings an older one to the latest schema.
  await runMigrations(url);
  const db = new DataSource({ ...dataSourceOptions(url), extra: { max: 4 } });
  await db.initialize();
  await CatalogueLoader.forDataSource(db, noCache, [SEARCH_DOCUMENTS_INDEX]).load();
  if (options.wordVectors !== false) await ensureWordVectors(preparingSql(db));
  return {
    url,
    db,
    drop: async () => {
      await db.destroy().catch(() => undefined);
      await dropDatabase(url);
    },
  };
}

/** A scratch catalogue left by an earlier run (`--keep`): brought to the latest schema, never dropped. */
export async function reuseCatalogue(url: string): Promise<ScratchCatalogue> {
  await runMigrations(url);
  const db = new DataSource({ ...dataSourceOptions(url), extra: { max: 4 } });
  await db.initialize();
  return { url, db, drop: async () => db.destroy() };
}

/** CREATE DATABASE … TEMPLATE, retried while another session (an autovacuum worker, say) is briefly connected to the template. */
async function copyDatabase(templateUrl: string, url: string): Promise<void> {
  const quote = (u: string) => `"${decodeURIComponent(new URL(u).pathname.slice(1)).replace(/"/g, '""')}"`;
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const client = new Client({ connectionString: maintenance.toString(), connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE ${quote(url)} TEMPLATE ${quote(templateUrl)}`);
        return;
      } catch (e) {
        if ((e as { code?: string }).code !== '55006' || attempt === 5) throw e;
        await new Promise((r) => setTimeout(r, 500 * attempt));
      }
    }
  } finally {
    await client.end();
  }
}
