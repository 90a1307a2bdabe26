import { DataSource } from 'typeorm';
import { EmbeddingsClient, EmbeddingsError } from './embeddings.client';
import { pendingEmbeddings, storeEmbeddings } from './search.store';

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
    const batch = await pendingEmbeddings(db, afterId, client.model, batchSize);
    if (!batch.length) return stored;
    afterId = batch[batch.length - 1].course_id;
    const vectors = await embedWithRetry(
      client,
      batch.map((b) => b.content),
    );
    stored += await storeEmbeddings(
      db,
      batch.map((b) => b.course_id),
      batch.map((b) => b.content_hash),
      vectors,
      client.model,
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
