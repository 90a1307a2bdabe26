import type { Queryable } from '../../common/database';
import { CoalescedRun } from '../../common/coalesced-run';
import { PeriodicTask } from '../../common/periodic-task';
import { ENCODER } from '../ranking-weights';
import { EncoderPool } from './encoder-pool';
import { SentenceIndex } from './sentence-index';
import { SENTENCE_MODEL } from './sentence-model';
import { SentenceVectorStore } from './vector-store';

// Recent queries' vectors kept (a repeated query costs no encoding).
const QUERY_CACHE = 500;
// How often the in-memory vectors are compared with the store, besides catalogue notifications.
const CHECK_EVERY_MS = 3000;
// Encoded once the model is loaded, before the first search: TensorFlow.js's first calls of a graph cost several
// times the later ones (shapes seen, kernels set up), and one text per length class warms them all.
const WARM_UP = [
  'python',
  'how do I start learning to cook healthy meals at home',
  'Machine Learning. An introduction to the methods computers use to learn from data, with exercises in Python and a final project.',
];

export interface RankerLogger {
  log(message: string): void;
  warn(message: string): void;
}

/**
 * The sentence encoder as a ranker: the query encoded on a thread of its own (10–15 ms of CPU; cached), scanned
 * against the course vectors held in memory. The event loop never runs the model: a search's SQL and the word-vector
 * engine go on while its query is encoded, and other requests are served meanwhile. Nothing in a search waits for the
 * model or for course vectors: until the model is loaded and some courses have vectors, rank() answers null and the
 * search goes on without it.
 */
export class SentenceRanker {
  readonly store: SentenceVectorStore;
  private readonly index: SentenceIndex;
  /**
   * One thread at the process's own priority (the background encoding threads run below it), one text per call; it
   * does not keep a process alive that has forgotten to stop() the ranker (a script that is done).
   */
  private readonly queries = new EncoderPool(1, { nice: 0, chunk: 1, unref: true });
  private loaded = false;
  private loading?: Promise<void>;
  private readonly reloads = new CoalescedRun(() => this.reload());
  private readonly checks = new PeriodicTask({ name: SentenceRanker.name, intervalMs: CHECK_EVERY_MS, firstDelayMs: 0, unref: true }, () => this.refresh());
  // Promises, so that a search asking for a query still being encoded waits for that encoding instead of repeating it.
  private readonly cache = new Map<string, Promise<Float32Array>>();

  constructor(
    db: Queryable,
    private readonly logger?: RankerLogger,
    model = SENTENCE_MODEL,
  ) {
    this.store = new SentenceVectorStore(db, model);
    this.index = new SentenceIndex(db, this.store);
  }

  /** Loads the model and the stored vectors in the background, then follows the store. */
  start(): void {
    void this.load();
    this.checks.start();
  }

  /** Stops following the store (waits for a reload the checks started) and ends the query encoder's thread. */
  async stop(): Promise<void> {
    await this.checks.stop();
    // terminate() stops the thread at once; what is left to await is only its exit notice.
    void this.queries.close();
  }

  /** Courses with a vector in this process. */
  get size(): number {
    return this.index.size;
  }

  get ready(): boolean {
    return this.loaded && this.index.size > 0;
  }

  /** Resolves once the model is loaded (or failed to). */
  load(): Promise<void> {
    this.loading ??= (async () => {
      const started = Date.now();
      try {
        for (const text of WARM_UP) await this.queries.encode([text]);
        this.loaded = true;
        this.logger?.log(`sentence encoder loaded in ${Date.now() - started} ms`);
      } catch (e) {
        this.logger?.warn(`sentence encoder not loaded, searches go on without it: ${(e as Error).message}`);
      }
    })();
    return this.loading;
  }

  /** Rereads what changed in the store or the catalogue; a call during a reload makes it run once more. */
  refresh(): Promise<void> {
    return this.reloads.run();
  }

  private async reload(): Promise<void> {
    try {
      await this.index.refresh();
    } catch (e) {
      this.logger?.warn(`sentence vectors not reloaded: ${(e as Error).message}`);
    }
  }

  /** The query's unit vector (cached), or null while the model is not loaded. */
  encodeQuery(text: string): Promise<Float32Array | null> {
    if (!this.loaded) return Promise.resolve(null);
    let vector = this.cache.get(text);
    if (vector) this.cache.delete(text);
    else {
      vector = this.queries.encode([text]).then(([v]) => v);
      // A failed encoding is not kept: the next search tries again.
      vector.catch(() => this.cache.get(text) === vector && this.cache.delete(text));
      if (this.cache.size >= QUERY_CACHE) this.cache.delete(this.cache.keys().next().value!);
    }
    this.cache.set(text, vector);
    return vector;
  }

  /** Forgets the cached query vectors (the benchmark measures every query's encoding). */
  clearCache(): void {
    this.cache.clear();
  }

  /** Courses by cosine to the query, best first; null when the encoder has nothing to say yet. */
  async rank(text: string, max: number): Promise<Array<{ id: number; score: number; cosine: number }> | null> {
    if (!text.trim() || !this.index.size) return null;
    const query = await this.encodeQuery(text);
    if (!query) return null;
    const hits = this.index.rank(query, max, ENCODER.floor);
    return hits.length ? hits : null;
  }
}
