import { randomBytes } from 'node:crypto';
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

/**
 * A throw-away database (migrated, real catalogue and the embedded engine's word vectors loaded) for the eval and the benchmark. The server is taken from
 * SEARCH_EVAL_DATABASE_URL or DATABASE_URL (any database name; a new one is created next to it and dropped after).
 */
export async function createScratchCatalogue(label: string, options: { wordVectors?: boolean } = {}): Promise<ScratchCatalogue> {
  const base = new URL(process.env.SEARCH_EVAL_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  base.pathname = `/partner_api_${label}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const url = base.toString();
  await ensureDatabase(url);
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
