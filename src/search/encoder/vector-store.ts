import type { Queryable } from '../../common/database';
import { sql, sqlOne } from '../../common/database';
import { searchVersion } from '../search.store';
import { allCourseTexts } from './course-texts';
import type { VectorSink } from './encode-courses';
import { fromBytes, toBytes } from './sentence-model';

/** Progress of the course vectors: courses with every text encoded, and the rest. */
export interface EncoderIndexStatus {
  courses: number;
  embedded: number;
  pending: number;
  model: string;
}

// Hashes looked up per statement.
const LOOKUP_CHUNK = 2000;
// Vectors read per statement: the driver's parse of the bytea text and fromBytes() run in one turn of the event loop,
// ~20 ms for 2,000 vectors (a first load reads all 40,000 of a 20,000-course catalogue); 500 cost a first load 0.2 s
// more in round trips for no shorter block (its longest are the collector's).
const LOAD_CHUNK = 1000;

/** The sentence encoder's vectors in PostgreSQL (search_sentence_vectors), addressed by model and text hash. */
export class SentenceVectorStore implements VectorSink {
  constructor(
    private readonly db: Queryable,
    readonly model: string,
  ) {}

  /** Which of `hashes` have a vector of this model. */
  async stored(hashes: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (let i = 0; i < hashes.length; i += LOOKUP_CHUNK) {
      const rows = await sql<{ text_hash: string }>(
        this.db,
        `SELECT text_hash FROM search_sentence_vectors WHERE model = $1 AND text_hash = ANY($2::char(32)[])`,
        [this.model, hashes.slice(i, i + LOOKUP_CHUNK)],
      );
      for (const r of rows) found.add(r.text_hash);
    }
    return found;
  }

  /** The vectors of `hashes` that are stored. */
  async load(hashes: string[]): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    for (let i = 0; i < hashes.length; i += LOAD_CHUNK) {
      const rows = await sql<{ text_hash: string; vector: Buffer }>(
        this.db,
        `SELECT text_hash, vector FROM search_sentence_vectors WHERE model = $1 AND text_hash = ANY($2::char(32)[])`,
        [this.model, hashes.slice(i, i + LOAD_CHUNK)],
      );
      for (const r of rows) out.set(r.text_hash, fromBytes(r.vector));
    }
    return out;
  }

  /** Stores vectors; a text stored meanwhile (by another run) keeps its row. Returns how many were new. */
  async save(hashes: string[], vectors: Float32Array[]): Promise<number> {
    const row = await sqlOne<{ n: number }>(
      this.db,
      `WITH ins AS (
         INSERT INTO search_sentence_vectors (model, text_hash, vector)
         SELECT $1, h, v FROM unnest($2::char(32)[], $3::bytea[]) AS u(h, v)
         ON CONFLICT (model, text_hash) DO NOTHING RETURNING 1)
       SELECT count(*)::int AS n FROM ins`,
      [this.model, hashes, vectors.map(toBytes)],
    );
    return row!.n;
  }

  /** Changes whenever a vector is added or removed (of any model: a version kept by triggers): the in-memory index reloads then. */
  stamp(): Promise<string> {
    return searchVersion(this.db, 'sentence_vectors');
  }

  /** Removes vectors no course text uses any more, and every other model's. */
  async prune(keep: string[]): Promise<number> {
    const row = await sqlOne<{ n: number }>(
      this.db,
      `WITH del AS (DELETE FROM search_sentence_vectors WHERE model <> $1 OR NOT (text_hash = ANY($2::char(32)[])) RETURNING 1)
       SELECT count(*)::int AS n FROM del`,
      [this.model, keep],
    );
    return row!.n;
  }

  /** How many courses have all their texts encoded (read from the catalogue as it is now). */
  async status(): Promise<EncoderIndexStatus> {
    let courses = 0;
    let embedded = 0;
    for await (const page of allCourseTexts(this.db)) {
      const stored = await this.stored(page.flatMap((c) => c.hashes));
      courses += page.length;
      embedded += page.filter((c) => c.hashes.every((h) => stored.has(h))).length;
    }
    return { courses, embedded, pending: courses - embedded, model: this.model };
  }
}
