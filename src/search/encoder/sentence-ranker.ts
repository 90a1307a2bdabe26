import type { Queryable } from '../../common/database';
import { PeriodicTask } from '../../common/periodic-task';
import { ENCODER } from '../ranking-weights';
import { SentenceIndex } from './sentence-index';
import { loadSentenceModel, SENTENCE_MODEL, SentenceModel } from './sentence-model';
import { SentenceVectorStore } from './vector-store';

// Recent queries' vectors kept (a repeated query costs no encoding).
const QUERY_CACHE = 500;
// How often the in-memory vectors are compared with the store, besides catalogue notifications.
const CHECK_EVERY_MS = 3000;

export interface RankerLogger {
  log(message: string): void;
  warn(message: string): void;
}

/**
 * The sentence encoder as a ranker: the query encoded in this thread (a few ms; cached), scanned against the course
 * vectors held in memory. Nothing in a search waits for the model or for course vectors: until the model is loaded
 * and some courses have vectors, rank() answers null and the search goes on without it.
 */
export class SentenceRanker {
  readonly store: SentenceVectorStore;
  private readonly index: SentenceIndex;
  private model?: SentenceModel;
  private loading?: Promise<void>;
  private refreshing?: Promise<void>;
  private again = false;
  private readonly checks = new PeriodicTask({ name: SentenceRanker.name, intervalMs: CHECK_EVERY_MS, firstDelayMs: 0, unref: true }, () => this.refresh());
  private readonly cache = new Map<string, Float32Array>();

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

  /** Stops following the store; waits for a reload the checks started. */
  stop(): Promise<void> {
    return this.checks.stop();
  }

  /** Courses with a vector in this process. */
  get size(): number {
    return this.index.size;
  }

  get ready(): boolean {
    return Boolean(this.model) && this.index.size > 0;
  }

  /** Resolves once the model is loaded (or failed to). */
  load(): Promise<void> {
    this.loading ??= (async () => {
      const started = Date.now();
      try {
        this.model = await loadSentenceModel();
        this.logger?.log(`sentence encoder loaded in ${Date.now() - started} ms`);
      } catch (e) {
        this.logger?.warn(`sentence encoder not loaded, searches go on without it: ${(e as Error).message}`);
      }
    })();
    return this.loading;
  }

  /** Rereads what changed in the store or the catalogue; a call during a reload makes it run once more. */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.again = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.again = false;
        try {
          await this.index.refresh();
        } catch (e) {
          this.logger?.warn(`sentence vectors not reloaded: ${(e as Error).message}`);
        }
      } while (this.again);
    })().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** The query's unit vector (cached), or null while the model is not loaded. */
  async encodeQuery(text: string): Promise<Float32Array | null> {
    if (!this.model) return null;
    const hit = this.cache.get(text);
    if (hit) {
      this.cache.delete(text);
      this.cache.set(text, hit);
      return hit;
    }
    const [v] = await this.model.encode([text]);
    if (this.cache.size >= QUERY_CACHE) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(text, v);
    return v;
  }

  /** Forgets the cached query vectors (the benchmark measures every query's encoding). */
  clearCache(): void {
    this.cache.clear();
  }

  /** Courses by cosine to the query, best first; null when the encoder has nothing to say yet. */
  async rank(text: string, max: number): Promise<Array<{ id: number; score: number }> | null> {
    if (!text.trim() || !this.index.size) return null;
    const query = await this.encodeQuery(text);
    if (!query) return null;
    const hits = this.index.rank(query, max, ENCODER.floor);
    return hits.length ? hits : null;
  }
}
