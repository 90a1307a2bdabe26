import { words } from '../search-lexicon';
import { CourseText, WordLookup, WordVector } from './course-vector-index';
import { DIMENSIONS, SIF, sifWeight } from './vectors';

// Weight of a word by the field it occurs in; a word's weight in a course saturates like BM25's term frequency.
export const SOFT_FIELDS: Record<keyof Omit<CourseText, 'id'>, number> = { title: 3, category: 1, topics: 1.5, description: 0.5 };
const SATURATION = 2;

export interface SoftMatchOptions {
  /** Catalogue words taken as neighbours of a query word at most. */
  neighbours: number;
  /** Cosine below which a catalogue word is no neighbour. */
  floor: number;
  /** Exponent on the cosine: how much more a near synonym counts than a related word. */
  sharpness: number;
  /** Length normalisation (BM25's b): a course with many words matches more by chance. */
  lengthNorm: number;
}

export const SOFT_MATCH: SoftMatchOptions = { neighbours: 12, floor: 0.55, sharpness: 1, lengthNorm: 0.5 };

// Bounds on the work of one query: the query words expanded (those weighing most), the smallest weight worth
// expanding (words as common as "make" or "what" weigh under it), and neighbours used by more than this share of
// the courses (as rare as "the" in a catalogue: their postings are long and say little).
const MAX_EXPANDED_WORDS = 6;
const MIN_QUERY_WEIGHT = 0.15;
const MAX_NEIGHBOUR_SHARE = 0.25;
const NEIGHBOUR_CACHE = 5000;

/**
 * Soft term matching: each query word stands for its nearest catalogue words (by cosine of their vectors, itself
 * included), and a course scores, per query word, the best of cosine × the neighbour's weight in the course × the
 * neighbour's rarity in the catalogue. "hackers" finds courses about cybersecurity, "jabs" courses about vaccines,
 * even when no course uses the question's own words.
 */
export class SoftMatchIndex {
  private constructor(
    private readonly vocabulary: string[],
    private readonly matrix: Float32Array,
    private readonly postingsCourse: Int32Array[],
    private readonly postingsWeight: Float32Array[],
    private readonly idf: Float32Array,
    readonly ids: Int32Array,
    /** Each course's number of distinct words over the catalogue's mean. */
    private readonly relativeLength: Float32Array,
  ) {}

  /** Neighbours of recent query words: they depend on this index only, which is replaced whole on a rebuild. */
  private readonly neighbourCache = new Map<string, Array<{ at: number; sim: number }>>();

  static empty(): SoftMatchIndex {
    return new SoftMatchIndex([], new Float32Array(), [], [], new Float32Array(), new Int32Array(), new Float32Array());
  }

  static build(courses: CourseText[], lookup: WordLookup, stopwords: Set<string>): SoftMatchIndex {
    const index = new Map<string, number>();
    const vocabulary: string[] = [];
    const vectors: WordVector[] = [];
    // Per word, its courses and weights as flat growing arrays (no object per posting: 2 million at 20,000 courses).
    const postingCourses: number[][] = [];
    const postingWeights: number[][] = [];
    const lengths = new Float32Array(courses.length);
    const weights = new Map<number, number>();
    courses.forEach((course, c) => {
      weights.clear();
      for (const [field, fieldWeight] of Object.entries(SOFT_FIELDS) as Array<[keyof typeof SOFT_FIELDS, number]>) {
        for (const word of words(course[field])) {
          if (stopwords.has(word) || word.length < 2) continue;
          let at = index.get(word);
          if (at === undefined) {
            const wv = lookup(word);
            if (!wv) continue;
            at = vocabulary.length;
            index.set(word, at);
            vocabulary.push(word);
            vectors.push(wv);
            postingCourses.push([]);
            postingWeights.push([]);
          }
          weights.set(at, (weights.get(at) ?? 0) + fieldWeight);
        }
      }
      for (const [at, w] of weights) {
        postingCourses[at].push(c);
        postingWeights[at].push(w / (w + SATURATION));
      }
      lengths[c] = weights.size;
    });
    const meanLength = lengths.reduce((a, b) => a + b, 0) / Math.max(1, courses.length) || 1;
    const matrix = new Float32Array(vocabulary.length * DIMENSIONS);
    vectors.forEach((wv, i) => matrix.set(wv.v, i * DIMENSIONS));
    const n = courses.length;
    return new SoftMatchIndex(
      vocabulary,
      matrix,
      postingCourses.map((p) => Int32Array.from(p)),
      postingWeights.map((p) => Float32Array.from(p)),
      Float32Array.from(postingCourses, (p) => Math.log(1 + n / p.length)),
      Int32Array.from(courses, (c) => c.id),
      lengths.map((l) => l / meanLength),
    );
  }

  get size(): number {
    return this.vocabulary.length;
  }

  /** The catalogue words nearest to `v`, with their cosine, best first. */
  neighbours(v: Float32Array, options: SoftMatchOptions): Array<{ at: number; sim: number }> {
    const D = DIMENSIONS;
    const out: Array<{ at: number; sim: number }> = [];
    const m = this.matrix;
    let bar = options.floor;
    for (let r = 0, o = 0; r < this.vocabulary.length; r++, o += D) {
      let s = 0;
      for (let i = 0; i < D; i++) s += m[o + i] * v[i];
      if (s < bar) continue;
      out.push({ at: r, sim: s });
      if (out.length >= 4 * options.neighbours) {
        out.sort((a, b) => b.sim - a.sim);
        out.length = options.neighbours;
        bar = out[out.length - 1].sim;
      }
    }
    return out.sort((a, b) => b.sim - a.sim).slice(0, options.neighbours);
  }

  private cachedNeighbours(word: string, v: Float32Array, options: SoftMatchOptions): Array<{ at: number; sim: number }> {
    let hit = this.neighbourCache.get(word);
    if (!hit) {
      const maxPostings = MAX_NEIGHBOUR_SHARE * this.ids.length;
      hit = this.neighbours(v, options).filter((n) => this.postingsCourse[n.at].length <= maxPostings);
      if (this.neighbourCache.size >= NEIGHBOUR_CACHE) this.neighbourCache.delete(this.neighbourCache.keys().next().value!);
      this.neighbourCache.set(word, hit);
    }
    return hit;
  }

  /** Each course's soft-match score for the query words (by position in `ids`); all zeros when nothing matched. */
  score(query: Array<{ word: string; vector: WordVector }>, options: SoftMatchOptions): Float32Array {
    const total = new Float32Array(this.ids.length);
    const best = new Float32Array(this.ids.length);
    const weighed = query
      .map((q) => ({ ...q, weight: sifWeight(q.vector.rank, SIF.queryA) }))
      .filter((q) => q.weight >= MIN_QUERY_WEIGHT)
      .sort((a, b) => b.weight - a.weight)
      .slice(0, MAX_EXPANDED_WORDS);
    for (const { word, vector, weight } of weighed) {
      best.fill(0);
      const touched: number[] = [];
      for (const { at, sim } of this.cachedNeighbours(word, vector.v, options)) {
        const strength = Math.pow(Math.min(1, sim), options.sharpness) * this.idf[at];
        const courses = this.postingsCourse[at];
        const weights = this.postingsWeight[at];
        for (let k = 0; k < courses.length; k++) {
          const s = strength * weights[k];
          const c = courses[k];
          if (s > best[c]) {
            if (!best[c]) touched.push(c);
            best[c] = s;
          }
        }
      }
      for (const c of touched) total[c] += weight * best[c];
    }
    const b = options.lengthNorm;
    for (let c = 0; c < total.length; c++) if (total[c]) total[c] /= 1 - b + b * this.relativeLength[c];
    return total;
  }
}
