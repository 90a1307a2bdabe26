import { DataSource } from 'typeorm';
import { affected, sql } from '../common/database';
import { EmbeddingsClient, EmbeddingsError } from './embeddings.client';

/** Courses per embeddings request. */
export const EMBED_BATCH = 32;
const BATCH_TIMEOUT_MS = 30_000;
// Retries of one batch inside a run (BullMQ retries the whole job on top, with back-off).
const BATCH_ATTEMPTS = 3;
const RETRY_DELAY_MS = 500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Embeds every course whose stored vector is missing or stale (its text changed, or the model did), batch by batch.
 * A vector is written only if the text it was computed from is still current. Returns how many were stored;
 * throws when a batch keeps failing, so the job is retried.
 */
export async function embedPendingCourses(db: DataSource, client: EmbeddingsClient, batchSize = EMBED_BATCH): Promise<number> {
  let stored = 0;
  let afterId = 0;
  for (;;) {
    // course_id int, content text, content_hash char(32).
    const batch = await sql<{ course_id: number; content: string; content_hash: string }>(
      db,
      `SELECT course_id, content, content_hash FROM search_documents
        WHERE course_id > $1 AND (embedded_hash IS DISTINCT FROM content_hash OR embedding_model IS DISTINCT FROM $2)
        ORDER BY course_id LIMIT $3`,
      [afterId, client.model, batchSize],
    );
    if (!batch.length) return stored;
    afterId = batch[batch.length - 1].course_id;
    const vectors = await embedWithRetry(
      client,
      batch.map((b) => b.content),
    );
    stored += await affected(
      db,
      `UPDATE search_documents d SET embedding = v.embedding::real[], embedding_model = $4, embedded_hash = v.hash, embedded_at = now()
         FROM (SELECT * FROM unnest($1::int[], $2::text[], $3::text[]) AS u(course_id, hash, embedding)) v
        WHERE d.course_id = v.course_id AND d.content_hash = v.hash`,
      [batch.map((b) => b.course_id), batch.map((b) => b.content_hash), vectors.map((v) => `{${v.join(',')}}`), client.model],
    );
  }
}

async function embedWithRetry(client: EmbeddingsClient, inputs: string[]): Promise<number[][]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await client.embed(inputs, BATCH_TIMEOUT_MS);
    } catch (e) {
      if (!(e instanceof EmbeddingsError) || attempt >= BATCH_ATTEMPTS) throw e;
      await sleep(RETRY_DELAY_MS * attempt);
    }
  }
}
