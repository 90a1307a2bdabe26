import type { EntityManager } from 'typeorm';
import { affected, Queryable, sql, sqlOne } from '../common/database';
import type { CatalogueIndex } from '../courses/catalogue/catalogue-indexes';

/**
 * The search feature's statements outside the lexical ranking (lexical-search.store.ts) and the sentence vectors
 * (encoder/vector-store.ts): its documents, the word vectors, and what it reads of the catalogue (the courses
 * feature's `course_words` view). Each takes the connection to run on: a search's time-bounded one, or the app's.
 */

/** A course's words for a search index: its topic titles in order, joined with " . ", and the description's start. */
export interface CourseWords {
  id: number;
  title: string;
  category: string;
  /** '' for a course without topics. */
  topics: string;
  /** At most the asked number of characters. */
  description: string;
}

/** One page of every course's words (published or not), by id after `afterId`. */
export function courseWordsPage(db: Queryable, afterId: number, limit: number, descriptionChars: number): Promise<CourseWords[]> {
  return sql<CourseWords>(
    db,
    `SELECT id, title, category, topics, left(description, $3::int) AS description FROM course_words WHERE id > $1 ORDER BY id LIMIT $2`,
    [afterId, limit, descriptionChars],
  );
}

/**
 * The version of what a search process copies into memory (search_versions, raised by triggers in the writing
 * transaction): one primary-key read, where a stamp over the whole table cost milliseconds at every check.
 */
export async function searchVersion(db: Queryable, name: 'course_facts' | 'documents' | 'sentence_vectors'): Promise<string> {
  const row = await sqlOne<{ version: string }>(db, `SELECT version FROM search_versions WHERE name = $1`, [name]);
  return row?.version ?? '';
}

/** Changes whenever a search document is added, removed or rebuilt: the in-memory indexes reload then. */
export function documentsStamp(db: Queryable): Promise<string> {
  return searchVersion(db, 'documents');
}

export interface WordVectorRow {
  word: string;
  rank: number;
  /** 100 signed bytes. */
  vector: Buffer;
}

/** The stored vectors of these words (those that have one). */
export function wordVectorsOf(db: Queryable, words: string[]): Promise<WordVectorRow[]> {
  return sql<WordVectorRow>(db, `SELECT word, rank, vector FROM search_word_vectors WHERE word = ANY($1::varchar[])`, [words]);
}

/** Whether the word vectors of `source` are imported. */
export async function hasWordVectorSet(db: Queryable, source: string): Promise<boolean> {
  return (await sql(db, `SELECT 1 FROM search_word_vector_sets WHERE source = $1`, [source])).length > 0;
}

/** Waits for the import lock of this transaction: instances starting together import once. */
export async function lockWordVectorImport(tx: Queryable, key: number): Promise<void> {
  await sql(tx, `SELECT pg_advisory_xact_lock($1)`, [key]);
}

/** Empties the word vectors before an import of another source. */
export async function clearWordVectors(tx: Queryable): Promise<void> {
  await sql(tx, `TRUNCATE search_word_vectors`);
  await affected(tx, `DELETE FROM search_word_vector_sets`);
}

export async function insertWordVectors(tx: Queryable, words: string[], ranks: number[], vectors: Buffer[]): Promise<void> {
  await sql(
    tx,
    `INSERT INTO search_word_vectors (word, rank, vector) SELECT * FROM unnest($1::varchar[], $2::int[], $3::bytea[]) ON CONFLICT (word) DO NOTHING`,
    [words, ranks, vectors],
  );
}

export async function recordWordVectorSet(tx: Queryable, source: string, words: number): Promise<void> {
  await sql(tx, `INSERT INTO search_word_vector_sets (source, words) VALUES ($1, $2)`, [source, words]);
}

/** Changes whenever a course's hosted-model vector is stored. */
export async function embeddingsStamp(db: Queryable, model: string): Promise<string> {
  const row = await sqlOne<{ stamp: string }>(
    db,
    `SELECT count(*) || ':' || coalesce(max(embedded_at)::text, '') AS stamp FROM search_documents WHERE embedding_model = $1`,
    [model],
  );
  return row?.stamp ?? '';
}

/** Every course's hosted-model vector (the driver answers real[] as numbers). */
export function embeddingsOf(db: Queryable, model: string): Promise<Array<{ course_id: number; embedding: number[] }>> {
  return sql<{ course_id: number; embedding: number[] }>(
    db,
    `SELECT course_id, embedding FROM search_documents WHERE embedding_model = $1 AND embedding IS NOT NULL`,
    [model],
  );
}

/** Documents whose hosted-model vector is missing or stale (text changed, or the model did), by course id after `afterId`. */
export function pendingEmbeddings(
  db: Queryable,
  afterId: number,
  model: string,
  limit: number,
): Promise<Array<{ course_id: number; content: string; content_hash: string }>> {
  return sql<{ course_id: number; content: string; content_hash: string }>(
    db,
    `SELECT course_id, content, content_hash FROM search_documents
      WHERE course_id > $1 AND (embedded_hash IS DISTINCT FROM content_hash OR embedding_model IS DISTINCT FROM $2)
      ORDER BY course_id LIMIT $3`,
    [afterId, model, limit],
  );
}

/** Stores vectors whose text is still current (a document rebuilt meanwhile keeps waiting); how many were stored. */
export function storeEmbeddings(db: Queryable, courseIds: number[], hashes: string[], vectors: number[][], model: string): Promise<number> {
  return affected(
    db,
    `UPDATE search_documents d SET embedding = v.embedding::real[], embedding_model = $4, embedded_hash = v.hash, embedded_at = now()
       FROM (SELECT * FROM unnest($1::int[], $2::text[], $3::text[]) AS u(course_id, hash, embedding)) v
      WHERE d.course_id = v.course_id AND d.content_hash = v.hash`,
    [courseIds, hashes, vectors.map((v) => `{${v.join(',')}}`), model],
  );
}

// Search documents per statement: building them is the heavy part, and each statement must stay well within the
// client's read timeout (REQUEST_TIMEOUT_MS) even on a busy machine.
const REFRESH_BATCH = 100;

/**
 * Search's part in a catalogue bulk load: its triggers only queue the courses a load touches, and the documents are
 * built once at the end with the same functions the triggers call after any other catalogue change.
 */
export const SEARCH_DOCUMENTS_INDEX: CatalogueIndex = {
  async beforeBulkLoad(em: EntityManager): Promise<void> {
    await sql(em, `SET LOCAL search.defer_refresh = 'on'`);
  },
  async afterBulkLoad(em: EntityManager, courseIds: number[]): Promise<void> {
    for (let i = 0; i < courseIds.length; i += REFRESH_BATCH) {
      await sql(em, 'SELECT search_refresh_documents($1::int[])', [courseIds.slice(i, i + REFRESH_BATCH)]);
    }
    await sql(em, 'SELECT search_flush_pending()');
  },
};
