import type { Queryable } from '../../common/database';
import { documentsStamp } from '../search.store';
import { DotKernel } from '../semantic/dot-kernel';
import { topScores } from '../semantic/embedded-semantic';
import { allCourseTexts, CourseTexts } from './course-texts';
import { SENTENCE_DIMENSIONS } from './sentence-model';
import { SentenceVectorStore } from './vector-store';

/** The vectors one search scans: row r belongs to course rowCourse[r]; a course may have several rows. */
interface Matrix {
  ids: Int32Array;
  rows: DotKernel;
  rowCourse: Int32Array;
  embedded: number;
}

const EMPTY: Matrix = { ids: new Int32Array(), rows: DotKernel.create(0, false, SENTENCE_DIMENSIONS), rowCourse: new Int32Array(), embedded: 0 };

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
    return this.matrix.embedded;
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

  /** Courses by their best cosine to the unit vector `query`, best first, at least `floor`. */
  rank(query: Float32Array, max: number, floor: number): Array<{ id: number; score: number }> {
    const { ids, rows, rowCourse } = this.matrix;
    if (!ids.length) return [];
    const dots = rows.dots(query);
    // One row per course is the common case: its dot products are the scores as they are.
    let best = dots;
    if (rowCourse.length !== ids.length) {
      best = new Float32Array(ids.length).fill(-1);
      for (let r = 0; r < rowCourse.length; r++) if (dots[r] > best[rowCourse[r]]) best[rowCourse[r]] = dots[r];
    }
    return topScores(best, max, floor).map((c) => ({ id: ids[c], score: best[c] }));
  }
}

function build(courses: CourseTexts[], vectors: Map<string, Float32Array>): Matrix {
  const D = SENTENCE_DIMENSIONS;
  const kept = courses.filter((c) => c.hashes.some((h) => vectors.has(h)));
  const count = kept.reduce((n, c) => n + c.hashes.filter((h) => vectors.has(h)).length, 0);
  const rows = DotKernel.create(count, true, D);
  const rowCourse = new Int32Array(count);
  let r = 0;
  kept.forEach((c, i) => {
    for (const h of c.hashes) {
      const v = vectors.get(h);
      if (!v) continue;
      rows.matrix.set(v, r * D);
      rowCourse[r++] = i;
    }
  });
  return { ids: Int32Array.from(kept.map((c) => c.id)), rows, rowCourse, embedded: kept.length };
}
