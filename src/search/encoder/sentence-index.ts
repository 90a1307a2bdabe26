import type { Queryable } from '../../common/database';
import { ENCODER } from '../ranking-weights';
import { documentsStamp } from '../search.store';
import { DotKernel } from '../semantic/dot-kernel';
import { topScores } from '../semantic/embedded-semantic';
import { allCourseTexts, CourseTexts } from './course-texts';
import { SENTENCE_DIMENSIONS, unit } from './sentence-model';
import { SentenceVectorStore } from './vector-store';

/** The vectors one search scans: row r is course ids[r]'s. */
interface Matrix {
  ids: Int32Array;
  rows: DotKernel;
}

// Courses the feedback pass scores again: the first pass's best (on the tuning sets, 300 or all gave the same rankings).
const FEEDBACK_POOL = 1000;

const EMPTY: Matrix = { ids: new Int32Array(), rows: DotKernel.create(0, false, SENTENCE_DIMENSIONS) };

/**
 * The course vectors of this process, in memory: reloaded when the catalogue's stamp or the store's moves (only the
 * vectors it does not hold yet are read). A course without a vector yet is simply not in the scan.
 */
export class SentenceIndex {
  private matrix = EMPTY;
  private courses: CourseTexts[] = [];
  private vectors = new Map<string, Float32Array>();
  private catalogueStamp = '';
  private vectorStamp = '';

  constructor(
    private readonly db: Queryable,
    private readonly store: SentenceVectorStore,
  ) {}

  /** Courses that have at least one vector in the scan. */
  get size(): number {
    return this.matrix.ids.length;
  }

  /** Reloads what changed; one call at a time (the caller serialises). */
  async refresh(): Promise<boolean> {
    const stamp = await documentsStamp(this.db);
    const vectorStamp = await this.store.stamp();
    if (stamp === this.catalogueStamp && vectorStamp === this.vectorStamp) return false;
    if (stamp !== this.catalogueStamp) {
      const courses: CourseTexts[] = [];
      for await (const page of allCourseTexts(this.db)) courses.push(...page);
      this.courses = courses;
    }
    const wanted = new Set(this.courses.flatMap((c) => c.hashes));
    const vectors = new Map<string, Float32Array>();
    for (const [h, v] of this.vectors) if (wanted.has(h)) vectors.set(h, v);
    const missing = [...wanted].filter((h) => !vectors.has(h));
    for (const [h, v] of await this.store.load(missing)) vectors.set(h, v);
    this.vectors = vectors;
    this.matrix = build(this.courses, vectors);
    this.catalogueStamp = stamp;
    this.vectorStamp = vectorStamp;
    return true;
  }

  /**
   * Courses by cosine to the unit vector `query`, best first, at least `floor`. With ENCODER.feedbackWeight, the query
   * then moves towards the mean of the ENCODER.feedbackDocs courses it is closest to (Rocchio pseudo-relevance
   * feedback: a learner's few words gain the vocabulary of the courses they point to), and the first pass's best
   * FEEDBACK_POOL courses are scored again with it: a few hundred dot products instead of a second scan. `cosine` is
   * each course's cosine to the query as typed: feedback raises every candidate's score, so only it says how close a
   * course is to what was asked.
   */
  rank(query: Float32Array, max: number, floor: number): Array<{ id: number; score: number; cosine: number }> {
    const { ids, rows } = this.matrix;
    if (!ids.length) return [];
    const { feedbackDocs, feedbackWeight } = ENCODER;
    const feedback = Boolean(feedbackDocs && feedbackWeight);
    // Only the best `max` (or the feedback pool) are read out of the first pass: the other rows' products are not
    // computed (-Infinity), and those read are the full scan's, bit for bit.
    const first = rows.dotsOfBest(query, feedback ? Math.max(FEEDBACK_POOL, max) : max);
    if (!feedback) return topScores(first, max, floor).map((c) => ({ id: ids[c], score: first[c], cosine: first[c] }));
    const D = SENTENCE_DIMENSIONS;
    const m = rows.matrix;
    const pool = topScores(first, Math.max(FEEDBACK_POOL, max), -Infinity);
    const moved = Float32Array.from(query);
    const share = feedbackWeight / Math.min(feedbackDocs, pool.length);
    for (const c of pool.slice(0, feedbackDocs)) for (let i = 0; i < D; i++) moved[i] += share * m[c * D + i];
    const again = rows.doubleDots(unit(moved), pool);
    const scored = new Array<{ id: number; score: number; cosine: number }>(pool.length);
    for (let p = 0; p < pool.length; p++) scored[p] = { id: ids[pool[p]], score: again[p], cosine: first[pool[p]] };
    return scored
      .filter((h) => h.score >= floor)
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .slice(0, max);
  }
}

/**
 * One row per course: the sum of its texts' vectors (ENCODER.texts, each times its weight), made unit length. The scan
 * costs the same as with one text (a course whose texts are not all encoded yet uses those that are).
 */
function build(courses: CourseTexts[], vectors: Map<string, Float32Array>): Matrix {
  const D = SENTENCE_DIMENSIONS;
  const kept = courses.filter((c) => c.hashes.some((h) => vectors.has(h)));
  // The int8 copy only pays where a search asks for under a quarter of the rows (dotsOfBest): quantising costs the
  // event loop ~15 ms per 1,000 rows at each rebuild, for nothing on a catalogue of a few thousand courses.
  const coarse = kept.length > 4 * FEEDBACK_POOL;
  const rows = DotKernel.create(kept.length, true, D, true, coarse);
  kept.forEach((c, r) => {
    const sum = new Float32Array(D);
    c.hashes.forEach((h, t) => {
      const v = vectors.get(h);
      const w = c.weights[t];
      if (v) for (let i = 0; i < D; i++) sum[i] += w * v[i];
    });
    rows.matrix.set(unit(sum), r * D);
  });
  if (coarse) rows.quantize();
  return { ids: Int32Array.from(kept.map((c) => c.id)), rows };
}
