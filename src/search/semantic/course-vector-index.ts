import { DotKernel } from './dot-kernel';
import { addScaled, DIMENSIONS, finishRow, principalComponent, SIF, sifWeight, yieldEvery } from './vectors';
import { words } from '../search-lexicon';

/** A word's unit vector and its frequency rank in the vectors' source text. */
export interface WordVector {
  v: Float32Array;
  rank: number;
}

export type WordLookup = (word: string) => WordVector | undefined;

/** The text of one course, by field. */
export interface CourseText {
  id: number;
  title: string;
  category: string;
  topics: string;
  description: string;
}

// How much each field's words count in a course's vector: the title says most about what a course teaches.
const FIELD_WEIGHTS: Array<[keyof Omit<CourseText, 'id'>, number]> = [
  ['title', 3],
  ['category', 1],
  ['topics', 1.5],
  ['description', 1],
];

/**
 * One vector per course: the smooth-inverse-frequency weighted mean of its words' vectors (title words counting
 * most), with the catalogue's common direction removed (SIF, Arora et al. 2017). A query's vector is made the same
 * way, so cosine says how close a question is to a course in meaning, even when they share no word.
 */
export class CourseVectorIndex {
  private constructor(
    readonly ids: Int32Array,
    private readonly kernel: DotKernel,
    private readonly pc: Float32Array | null,
  ) {}

  static empty(): CourseVectorIndex {
    return new CourseVectorIndex(new Int32Array(), DotKernel.create(0), null);
  }

  static async build(courses: CourseText[], lookup: WordLookup): Promise<CourseVectorIndex> {
    const kernel = DotKernel.create(courses.length);
    const rows = kernel.matrix;
    // Every course has a row, in the order given (a course none of whose words has a vector keeps a zero row).
    for (let at = 0; at < courses.length; at++) {
      await yieldEvery(at);
      const course = courses[at];
      for (const [field, fieldWeight] of FIELD_WEIGHTS) {
        for (const word of words(course[field])) {
          const wv = lookup(word);
          if (!wv) continue;
          addScaled(rows, at, wv.v, fieldWeight * sifWeight(wv.rank));
        }
      }
    }
    const pc = principalComponent(rows, courses.length);
    for (let r = 0; r < courses.length; r++) finishRow(rows, r, pc);
    return new CourseVectorIndex(
      Int32Array.from(courses, (c) => c.id),
      kernel,
      pc,
    );
  }

  get size(): number {
    return this.ids.length;
  }

  /** The query's vector (null when none of its words has one), made like a course's. */
  queryVector(queryWords: string[], lookup: WordLookup): Float32Array | null {
    const out = new Float32Array(DIMENSIONS);
    let total = 0;
    for (const word of queryWords) {
      const wv = lookup(word);
      if (!wv) continue;
      const w = sifWeight(wv.rank, SIF.queryA);
      addScaled(out, 0, wv.v, w);
      total += w;
    }
    if (!total) return null;
    finishRow(out, 0, this.pc);
    return out;
  }

  /**
   * Pseudo-relevance feedback (Rocchio in the vector space): the query vector moved towards the mean of the rows at
   * `positions` (the first pass's best courses) by `weight`, so that courses like the best ones rise even when they share
   * none of the question's words.
   */
  feedback(query: Float32Array, positions: number[], weight: number): Float32Array {
    const D = DIMENSIONS;
    const out = Float32Array.from(query);
    if (!positions.length) return out;
    const w = weight / positions.length;
    const rows = this.kernel.matrix;
    for (const p of positions) for (let i = 0, o = p * D; i < D; i++) out[i] += w * rows[o + i];
    return out;
  }

  /** Each course's cosine to the query vector, by position in `ids`. */
  cosines(query: Float32Array): Float32Array {
    return this.kernel.dots(query);
  }

  /** Courses by cosine to the query vector, best first, at most `max`, none below `floor`. */
  nearest(query: Float32Array, max: number, floor: number): Array<{ id: number; score: number }> {
    const scored: Array<{ id: number; score: number }> = [];
    const sims = this.kernel.dots(query);
    let worst = floor;
    for (let r = 0; r < this.ids.length; r++) {
      const s = sims[r];
      if (s < worst) continue;
      scored.push({ id: this.ids[r], score: s });
      // Keep the list short: once it is twice the size wanted, drop the lower half and raise the bar.
      if (scored.length >= 2 * max) {
        scored.sort((a, b) => b.score - a.score);
        scored.length = max;
        worst = scored[max - 1].score;
      }
    }
    return scored.sort((a, b) => b.score - a.score || a.id - b.id).slice(0, max);
  }
}
