import type { Queryable } from '../../common/database';
import { CoalescedRun } from '../../common/coalesced-run';
import { PeriodicTask } from '../../common/periodic-task';
import { ENCODER } from '../ranking-weights';
import { EncoderPool } from './encoder-pool';
import { SentenceIndex } from './sentence-index';
import { SENTENCE_MODEL } from './sentence-model';
import { PackedHits, ScanOptions, SentenceHit, shareMatrix, unpackHits } from './sentence-scan';
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

/** A query's vector and, when the encoder's thread scanned it too, its hits and what they were scanned with. */
interface Encoded {
  vector: Float32Array;
  scan?: { generation: number; options: ScanOptions; hits: SentenceHit[] };
}

interface ScanReply {
  hits: PackedHits;
  generation: number;
}

const sameOptions = (a: ScanOptions, b: ScanOptions) =>
  a.max === b.max && a.floor === b.floor && a.feedbackDocs === b.feedbackDocs && a.feedbackWeight === b.feedbackWeight;

export interface RankerLogger {
  log(message: string): void;
  warn(message: string): void;
}

/**
 * The sentence encoder as a ranker: the query encoded on a thread of its own (10–15 ms of CPU; cached) and scanned
 * there against the course vectors, which the event loop loads into memory shared with that thread. The event loop
 * never runs the model nor the scan: a search's SQL and the word-vector engine go on while its query is encoded and
 * scanned, and other requests are served meanwhile. Nothing in a search waits for the
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
  private readonly queries = new EncoderPool(1, { nice: 0, chunk: 1, unref: true, init: () => this.sharedMatrix() });
  private loaded = false;
  private loading?: Promise<void>;
  private readonly reloads = new CoalescedRun(() => this.reload());
  private readonly checks = new PeriodicTask({ name: SentenceRanker.name, intervalMs: CHECK_EVERY_MS, firstDelayMs: 0, unref: true }, () => this.refresh());
  // Promises, so that a search asking for a query still being encoded waits for that encoding instead of repeating it.
  private readonly cache = new Map<string, Promise<Encoded>>();

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
      if (!(await this.index.refresh())) return;
      const generation = this.index.generation;
      // A new matrix goes to the thread at once (the messages keep their order: every scan asked after it reads it). A
      // thread that has not started gets it when it does; one that fails has let go of every matrix.
      if (this.queries.running) await this.queries.request({ matrix: shareMatrix(this.index.matrix, generation) }).catch(() => undefined);
      this.index.release(generation);
    } catch (e) {
      this.logger?.warn(`sentence vectors not reloaded: ${(e as Error).message}`);
    }
  }

  /** The query's unit vector (cached), or null while the model is not loaded. */
  async encodeQuery(text: string): Promise<Float32Array | null> {
    const encoded = this.encoded(text, () => this.queries.encode([text]).then(([vector]) => ({ vector })));
    return encoded ? (await encoded).vector : null;
  }

  /** The cached encoding of `text`, else the one `encode` starts (kept unless it fails); null while no model. */
  private encoded(text: string, encode: () => Promise<Encoded>): Promise<Encoded> | null {
    if (!this.loaded) return null;
    let entry = this.cache.get(text);
    if (entry) this.cache.delete(text);
    else {
      entry = encode();
      // A failed encoding is not kept: the next search tries again.
      entry.catch(() => this.cache.get(text) === entry && this.cache.delete(text));
      if (this.cache.size >= QUERY_CACHE) this.cache.delete(this.cache.keys().next().value!);
    }
    this.cache.set(text, entry);
    return entry;
  }

  /** The matrix as the query encoder's thread takes it (the same memory, not a copy); undefined before the first load. */
  private sharedMatrix(): object | undefined {
    return this.index.generation ? { matrix: shareMatrix(this.index.matrix, this.index.generation) } : undefined;
  }

  /** Forgets the cached query vectors (the benchmark measures every query's encoding). */
  clearCache(): void {
    this.cache.clear();
  }

  /**
   * Courses by cosine to the query, best first; null when the encoder has nothing to say yet. The encoder's thread
   * scans right after encoding, so the event loop only unpacks the hits; a query encoded before (encodeQuery, or the
   * matrix reloaded since) is sent back for a scan alone.
   */
  async rank(text: string, max: number): Promise<SentenceHit[] | null> {
    if (!text.trim() || !this.index.size) return null;
    const options: ScanOptions = { max, floor: ENCODER.floor, feedbackDocs: ENCODER.feedbackDocs, feedbackWeight: ENCODER.feedbackWeight };
    const scanned = (reply: ScanReply) => ({ generation: reply.generation, options, hits: unpackHits(reply.hits) });
    const encoded = this.encoded(text, () =>
      this.queries.request<ScanReply>({ texts: [text], scan: options }).then((reply) => ({ vector: reply.vectors![0], scan: scanned(reply) })),
    );
    if (!encoded) return null;
    const { vector, scan } = await encoded;
    let hits = scan?.hits;
    if (!scan || scan.generation !== this.index.generation || !sameOptions(scan.options, options)) {
      const again = scanned(await this.queries.request<ScanReply>({ vector, scan: options }));
      hits = again.hits;
      if (this.cache.get(text) === encoded) this.cache.set(text, Promise.resolve({ vector, scan: again }));
    }
    return hits!.length ? hits! : null;
  }
}
