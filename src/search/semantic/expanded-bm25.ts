import { words } from '../search-lexicon';
import { CourseText, WordLookup, WordVector } from './course-vector-index';
import { DIMENSIONS, SIF, sifWeight } from './vectors';

type Field = keyof Omit<CourseText, 'id'>;

/** BM25F (Robertson and Zaragoza): each field's term frequency, length-normalised by its own `b`, weighed and summed. */
export const BM25F = {
  fields: { title: { weight: 3, b: 0.5 }, category: { weight: 1, b: 0 }, topics: { weight: 1.5, b: 0.5 }, description: { weight: 1, b: 0.75 } } as Record<
    Field,
    { weight: number; b: number }
  >,
  k1: 1.2,
};

export interface ExpansionOptions {
  /** Catalogue words a query word stands for at most (itself included when the catalogue uses it). */
  neighbours: number;
  /** Cosine below which a catalogue word is no expansion of a query word. */
  floor: number;
  /** Exponent on the cosine: how much less a related word counts than the word itself. */
  sharpness: number;
  /** Query words expanded at most (those weighing most). */
  maxWords: number;
}

export const EXPANSION: ExpansionOptions = { neighbours: 10, floor: 0.6, sharpness: 2, maxWords: 8 };

// Expansions used by more than this share of the courses (and more than a handful) say little and cost long postings.
const MAX_EXPANSION_SHARE = 0.25;
const ALWAYS_EXPANDED_POSTINGS = 50;
const EXPANSION_CACHE = 5000;

export interface Expansion {
  word: string;
  sim: number;
}

/**
 * Query expansion into the catalogue's vocabulary by word vectors, ranked by BM25F: each query word stands for its
 * nearest catalogue words ("procrastinate" → procrastination, deadlines; "jabs" → vaccines, vaccination), each
 * weighing its cosine to the query word (sharpened) × its BM25F score in the course. A course scores, per query word,
 * the sum over the word's expansions, and the query words add up weighed by their rarity in English. Postings are
 * typed arrays (course position, saturated BM25F term weight × idf), so a query costs a few hundred thousand
 * multiply-adds even at 20,000 courses.
 */
export class ExpandedBm25 {
  private readonly neighbourCache = new Map<string, Array<{ at: number; sim: number }>>();

  private constructor(
    private readonly vocabulary: string[],
    private readonly position: Map<string, number>,
    private readonly matrix: Float32Array,
    private readonly postingsCourse: Int32Array[],
    private readonly postingsWeight: Float32Array[],
    readonly ids: Int32Array,
  ) {}

  static empty(): ExpandedBm25 {
    return new ExpandedBm25([], new Map(), new Float32Array(), [], [], new Int32Array());
  }

  static build(courses: CourseText[], lookup: WordLookup, stopwords: Set<string>): ExpandedBm25 {
    const fields = Object.entries(BM25F.fields) as Array<[Field, { weight: number; b: number }]>;
    const position = new Map<string, number>();
    const vocabulary: string[] = [];
    const vectors: WordVector[] = [];
    const postingCourses: number[][] = [];
    const postingTf: number[][] = [];
    // Field lengths (in words) of every course, for the length normalisation: a first pass that keeps no words (holding
    // every course's words at once would cost more memory than the index itself at 20,000 courses).
    const lengths = fields.map(() => new Float32Array(courses.length));
    courses.forEach((course, c) => fields.forEach(([field], f) => (lengths[f][c] = words(course[field]).length)));
    const mean = lengths.map((l) => l.reduce((a, b) => a + b, 0) / Math.max(1, courses.length) || 1);
    const tf = new Map<number, number>();
    courses.forEach((course, c) => {
      tf.clear();
      fields.forEach(([field, { weight, b }], f) => {
        const norm = weight / (1 - b + (b * lengths[f][c]) / mean[f]);
        for (const word of words(course[field])) {
          if (word.length < 2 || stopwords.has(word)) continue;
          let at = position.get(word);
          if (at === undefined) {
            const wv = lookup(word);
            if (!wv) continue;
            at = vocabulary.length;
            position.set(word, at);
            vocabulary.push(word);
            vectors.push(wv);
            postingCourses.push([]);
            postingTf.push([]);
          }
          tf.set(at, (tf.get(at) ?? 0) + norm);
        }
      });
      for (const [at, x] of tf) {
        postingCourses[at].push(c);
        postingTf[at].push(x);
      }
    });
    const n = courses.length;
    const matrix = new Float32Array(vocabulary.length * DIMENSIONS);
    vectors.forEach((wv, i) => matrix.set(wv.v, i * DIMENSIONS));
    const k1 = BM25F.k1;
    return new ExpandedBm25(
      vocabulary,
      position,
      matrix,
      postingCourses.map((p) => Int32Array.from(p)),
      postingTf.map((p) => {
        const idf = Math.log(1 + (n - p.length + 0.5) / (p.length + 0.5));
        return Float32Array.from(p, (x) => (idf * x) / (k1 + x));
      }),
      Int32Array.from(courses, (c) => c.id),
    );
  }

  get size(): number {
    return this.vocabulary.length;
  }

  /** The catalogue words a query word is expanded into, with their cosines, best first (the word itself first when the catalogue uses it). */
  expand(word: string, v: Float32Array, options: ExpansionOptions = EXPANSION): Expansion[] {
    return this.cachedNeighbours(word, v, options).map((n) => ({ word: this.vocabulary[n.at], sim: n.sim }));
  }

  private cachedNeighbours(word: string, v: Float32Array, options: ExpansionOptions): Array<{ at: number; sim: number }> {
    const cacheKey = `${word}|${options.neighbours}|${options.floor}`;
    let hit = this.neighbourCache.get(cacheKey);
    if (hit) return hit;
    hit = this.nearest(v, options.neighbours, options.floor, this.position.get(word));
    if (this.neighbourCache.size >= EXPANSION_CACHE) this.neighbourCache.delete(this.neighbourCache.keys().next().value!);
    this.neighbourCache.set(cacheKey, hit);
    return hit;
  }

  /** The `count` catalogue words nearest to `v` at or above `floor` (`own` first, with cosine 1, when given), without over-common ones. */
  private nearest(v: Float32Array, count: number, floor: number, own?: number): Array<{ at: number; sim: number }> {
    const options = { neighbours: count, floor };
    const D = DIMENSIONS;
    const m = this.matrix;
    const found: Array<{ at: number; sim: number }> = [];
    let bar = options.floor;
    for (let r = 0, o = 0; r < this.vocabulary.length; r++, o += D) {
      let s = 0;
      for (let i = 0; i < D; i++) s += m[o + i] * v[i];
      if (s < bar) continue;
      found.push({ at: r, sim: s });
      if (found.length >= 4 * options.neighbours) {
        found.sort((a, b) => b.sim - a.sim || a.at - b.at);
        found.length = options.neighbours;
        bar = found[found.length - 1].sim;
      }
    }
    const maxPostings = Math.max(ALWAYS_EXPANDED_POSTINGS, MAX_EXPANSION_SHARE * this.ids.length);
    const hit = found
      .filter((f) => f.at !== own)
      .sort((a, b) => b.sim - a.sim || a.at - b.at)
      .slice(0, own === undefined ? options.neighbours : options.neighbours - 1);
    if (own !== undefined) hit.unshift({ at: own, sim: 1 });
    return hit.filter((f) => this.postingsCourse[f.at].length <= maxPostings);
  }

  /** Each course's score for the query words (by position in `ids`); all zeros when nothing matched. */
  score(query: Array<{ word: string; vector: WordVector }>, options: ExpansionOptions = EXPANSION): Float32Array {
    const total = new Float32Array(this.ids.length);
    const add = (at: number, strength: number) => {
      const courses = this.postingsCourse[at];
      const weights = this.postingsWeight[at];
      for (let k = 0; k < courses.length; k++) total[courses[k]] += strength * weights[k];
    };
    const weighed = query
      .map((q) => ({ ...q, weight: sifWeight(q.vector.rank, SIF.queryA) }))
      .sort((a, b) => b.weight - a.weight || (a.word < b.word ? -1 : 1))
      .slice(0, options.maxWords);
    for (const { word, vector, weight } of weighed) {
      for (const { at, sim } of this.cachedNeighbours(word, vector.v, options)) add(at, weight * Math.pow(Math.min(1, sim), options.sharpness));
    }
    return total;
  }
}
