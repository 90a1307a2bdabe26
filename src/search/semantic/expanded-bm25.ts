import { BM25F, EXPANSION, ExpansionOptions } from '../ranking-weights';
import { words } from '../search-lexicon';
import { CourseText, WordLookup, WordVector } from './course-vector-index';
import { DotKernel } from './dot-kernel';
import { DIMENSIONS, SIF, sifWeight, yieldEvery } from './vectors';

export type Field = keyof Omit<CourseText, 'id'>;

// Expansions used by more than this share of the courses (and more than a handful) say little and cost long postings.
const MAX_EXPANSION_SHARE = 0.25;
const ALWAYS_EXPANDED_POSTINGS = 50;
const EXPANSION_CACHE = 5000;

export interface Expansion {
  word: string;
  sim: number;
}

/** A catalogue word (by position in the vocabulary) and its weight in an expanded query. */
export interface WeightedTerm {
  at: number;
  weight: number;
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
    private readonly vectors: DotKernel,
    private readonly postingsCourse: Int32Array[],
    private readonly postingsWeight: Float32Array[],
    readonly ids: Int32Array,
    // The same weights by course (compressed rows: course c's words are docTerms[docStart[c] .. docStart[c + 1]]), for
    // term feedback from a few courses without scanning every posting.
    private readonly docStart: Int32Array,
    private readonly docTerms: Int32Array,
    private readonly docWeights: Float32Array,
  ) {}

  static empty(): ExpandedBm25 {
    return new ExpandedBm25([], new Map(), DotKernel.create(0), [], [], new Int32Array(), new Int32Array(1), new Int32Array(), new Float32Array());
  }

  static async build(courses: CourseText[], lookup: WordLookup, stopwords: Set<string>): Promise<ExpandedBm25> {
    const fields = Object.entries(BM25F.fields) as Array<[Field, { weight: number; b: number }]>;
    const position = new Map<string, number>();
    const vocabulary: string[] = [];
    const vectors: WordVector[] = [];
    const postingCourses: number[][] = [];
    const postingTf: number[][] = [];
    // Field lengths (in words) of every course, for the length normalisation: a first pass that keeps no words (holding
    // every course's words at once would cost more memory than the index itself at 20,000 courses).
    const lengths = fields.map(() => new Float32Array(courses.length));
    for (let c = 0; c < courses.length; c++) {
      await yieldEvery(c);
      fields.forEach(([field], f) => (lengths[f][c] = words(courses[c][field]).length));
    }
    const mean = lengths.map((l) => l.reduce((a, b) => a + b, 0) / Math.max(1, courses.length) || 1);
    const tf = new Map<number, number>();
    for (let c = 0; c < courses.length; c++) {
      await yieldEvery(c);
      const course = courses[c];
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
    }
    const n = courses.length;
    const kernel = DotKernel.create(vocabulary.length);
    vectors.forEach((wv, i) => kernel.matrix.set(wv.v, i * DIMENSIONS));
    const k1 = BM25F.k1;
    const postingsCourse = postingCourses.map((p) => Int32Array.from(p));
    const postingsWeight = postingTf.map((p) => {
      const idf = Math.log(1 + (n - p.length + 0.5) / (p.length + 0.5));
      return Float32Array.from(p, (x) => (idf * x) / (k1 + x));
    });
    // Transpose the postings into rows by course (counting sort: two passes over the postings).
    const docStart = new Int32Array(n + 1);
    for (const p of postingsCourse) for (let k = 0; k < p.length; k++) docStart[p[k] + 1]++;
    for (let c = 0; c < n; c++) docStart[c + 1] += docStart[c];
    const fill = docStart.slice(0, n);
    const docTerms = new Int32Array(docStart[n]);
    const docWeights = new Float32Array(docStart[n]);
    postingsCourse.forEach((p, at) => {
      for (let k = 0; k < p.length; k++) {
        const slot = fill[p[k]]++;
        docTerms[slot] = at;
        docWeights[slot] = postingsWeight[at][k];
      }
    });
    return new ExpandedBm25(
      vocabulary,
      position,
      kernel,
      postingsCourse,
      postingsWeight,
      Int32Array.from(courses, (c) => c.id),
      docStart,
      docTerms,
      docWeights,
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
    const sims = this.vectors.dots(v);
    const found: Array<{ at: number; sim: number }> = [];
    let bar = options.floor;
    for (let r = 0; r < this.vocabulary.length; r++) {
      const s = sims[r];
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

  /**
   * Term feedback (RM3, Lavrenko and Croft; Abdul-Jaleel et al.): the words that weigh most in the courses at
   * `positions` (the first pass's best), each course counting by its first-pass score and each word by its share of
   * the course's BM25F weight (which already favours rare words). The best `count`, weights summing to 1; words used by
   * more than MAX_EXPANSION_SHARE of the courses are left out, as for expansions.
   */
  feedbackTerms(scores: Float32Array, positions: number[], count: number): WeightedTerm[] {
    const maxPostings = Math.max(ALWAYS_EXPANDED_POSTINGS, MAX_EXPANSION_SHARE * this.ids.length);
    const mass = new Map<number, number>();
    for (const c of positions) {
      let sum = 0;
      for (let k = this.docStart[c]; k < this.docStart[c + 1]; k++) sum += this.docWeights[k];
      if (!sum || !(scores[c] > 0)) continue;
      const share = scores[c] / sum;
      for (let k = this.docStart[c]; k < this.docStart[c + 1]; k++) {
        const at = this.docTerms[k];
        if (this.postingsCourse[at].length > maxPostings) continue;
        mass.set(at, (mass.get(at) ?? 0) + share * this.docWeights[k]);
      }
    }
    const best = [...mass]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, count)
      .map(([at, weight]) => ({ at, weight }));
    const total = best.reduce((a, t) => a + t.weight, 0);
    return total ? best.map((t) => ({ at: t.at, weight: t.weight / total })) : [];
  }

  /** How many courses use the word (in the fields this index reads); 0 for a word it does not hold. */
  frequency(word: string): number {
    const at = this.position.get(word);
    return at === undefined ? 0 : this.postingsCourse[at].length;
  }

  /** The catalogue word at a vocabulary position (for tests and logs). */
  wordAt(at: number): string {
    return this.vocabulary[at];
  }

  /** Each course's BM25F score for weighted catalogue words (by position in `ids`). */
  scoreTerms(terms: WeightedTerm[]): Float32Array {
    const total = new Float32Array(this.ids.length);
    for (const { at, weight } of terms) {
      const courses = this.postingsCourse[at];
      const weights = this.postingsWeight[at];
      for (let k = 0; k < courses.length; k++) total[courses[k]] += weight * weights[k];
    }
    return total;
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
