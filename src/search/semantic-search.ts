import { DataSource } from 'typeorm';
import { EmbeddingsClient } from './embeddings.client';
import { embeddingsOf, embeddingsStamp } from './search.store';

// A query's embedding must come back within this, so that a search with a slow model still answers within 1.5 s.
export const QUERY_EMBEDDING_TIMEOUT_MS = 1000;
// How often the in-process copy of the stored course vectors is checked against the database.
const RELOAD_CHECK_MS = 2000;
const QUERY_CACHE_SIZE = 1000;
// Courses scoring below this cosine are not semantic candidates at all.
const MIN_COSINE = 0.2;

interface VectorSet {
  stamp: string;
  ids: Int32Array;
  vectors: Float32Array[];
}

const normalise = (v: ArrayLike<number>): Float32Array => {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i] * v[i];
  const out = new Float32Array(v.length);
  const inv = n ? 1 / Math.sqrt(n) : 0;
  for (let i = 0; i < v.length; i++) out[i] = v[i] * inv;
  return out;
};

/**
 * Semantic ranking over course embeddings stored in PostgreSQL (real[]): the vectors are held in process, normalised,
 * and reloaded when the stored set changes; cosine is a dot product. Query vectors are cached by text.
 */
export class SemanticSearch {
  private set: VectorSet = { stamp: '', ids: new Int32Array(), vectors: [] };
  private checkedAt = 0;
  private reloading?: Promise<void>;
  private readonly queryCache = new Map<string, Float32Array>();

  constructor(
    private readonly db: DataSource,
    readonly client: EmbeddingsClient,
  ) {}

  /** Course ids by cosine to the query, best first; throws when the model fails or is too slow. */
  async rank(text: string, max: number): Promise<number[]> {
    return (await this.rankScored(text, max)).map((h) => h.id);
  }

  /** Courses by cosine to the query, with it, best first; throws when the model fails or is too slow. */
  async rankScored(text: string, max: number): Promise<Array<{ id: number; score: number }>> {
    const set = this.vectors();
    const query = await this.embedQuery(text);
    if (!set.vectors.length || set.vectors[0].length !== query.length) return [];
    const scored: Array<{ id: number; s: number }> = [];
    for (let i = 0; i < set.vectors.length; i++) {
      const v = set.vectors[i];
      let s = 0;
      for (let j = 0; j < v.length; j++) s += v[j] * query[j];
      if (s >= MIN_COSINE) scored.push({ id: set.ids[i], s });
    }
    return scored
      .sort((a, b) => b.s - a.s || a.id - b.id)
      .slice(0, max)
      .map((x) => ({ id: x.id, score: x.s }));
  }

  private async embedQuery(text: string): Promise<Float32Array> {
    const hit = this.queryCache.get(text);
    if (hit) return hit;
    const [vector] = await this.client.embed([text], QUERY_EMBEDDING_TIMEOUT_MS);
    const normalised = normalise(vector);
    if (this.queryCache.size >= QUERY_CACHE_SIZE) this.queryCache.delete(this.queryCache.keys().next().value!);
    this.queryCache.set(text, normalised);
    return normalised;
  }

  /** The vectors loaded so far; a check for newer ones (and their load) runs in the background, never in a search's way. */
  private vectors(): VectorSet {
    if (!this.reloading && Date.now() - this.checkedAt >= RELOAD_CHECK_MS) {
      this.checkedAt = Date.now();
      this.reloading = this.reload()
        .catch(() => undefined) // the next check tries again; searches go on with the vectors they have
        .finally(() => (this.reloading = undefined));
    }
    return this.set;
  }

  private async reload(): Promise<void> {
    const stamp = await embeddingsStamp(this.db, this.client.model);
    if (stamp === this.set.stamp) return;
    const rows = await embeddingsOf(this.db, this.client.model);
    this.set = { stamp, ids: Int32Array.from(rows.map((r) => r.course_id)), vectors: rows.map((r) => normalise(r.embedding)) };
  }
}
