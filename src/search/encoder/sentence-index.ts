import type { Queryable } from '../../common/database';
import { TimeSlices } from '../../common/time-slices';
import { documentsStamp } from '../search.store';
import { DotKernel } from '../semantic/dot-kernel';
import { allCourseTexts, CourseTexts } from './course-texts';
import { SENTENCE_DIMENSIONS, unitInto } from './sentence-model';
import { EMPTY_MATRIX, FEEDBACK_POOL, SentenceMatrix } from './sentence-scan';
import { SentenceVectorStore } from './vector-store';

/**
 * The course vectors of this process, in memory: reloaded when the catalogue's stamp or the store's moves (only the
 * vectors it does not hold yet are read). A course without a vector yet is simply not in the scan.
 */
export class SentenceIndex {
  private current = EMPTY_MATRIX;
  private built = 0;
  /** The matrix the last reload replaced, until the scanning thread says it has moved on (release()). */
  private retired: SentenceMatrix | null = null;
  /** A replaced matrix no thread scans any more: the next reload writes into its memory when it fits. */
  private spare: SentenceMatrix | null = null;
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
    return this.current.ids.length;
  }

  /**
   * The matrix searches scan (scanMatrix), built on this thread in memory it can share: SentenceRanker hands it to the
   * query encoder's thread, which alone scans it from then on.
   */
  get matrix(): SentenceMatrix {
    return this.current;
  }

  /** Counts the matrices built: moves with each reload that changed something. */
  get generation(): number {
    return this.built;
  }

  /** Reloads what changed; one call at a time (the caller serialises). */
  async refresh(): Promise<boolean> {
    const stamp = await documentsStamp(this.db);
    const vectorStamp = await this.store.stamp();
    if (stamp === this.catalogueStamp && vectorStamp === this.vectorStamp) return false;
    // Every step over the courses or the vectors yields to the event loop every ~5 ms (TimeSlices): at 20,000 courses
    // each takes 15–50 ms, and together with the matrix they held every request for ~150 ms.
    const slices = new TimeSlices();
    if (stamp !== this.catalogueStamp) {
      const courses: CourseTexts[] = [];
      for await (const page of allCourseTexts(this.db, slices)) courses.push(...page);
      this.courses = courses;
    }
    const wanted = new Set<string>();
    for (let i = 0; i < this.courses.length; i++) {
      for (const h of this.courses[i].hashes) wanted.add(h);
      if (i % STEP_CHUNK === STEP_CHUNK - 1) await slices.pause();
    }
    // The vectors held, in the order held, for the texts still wanted (this.vectors is replaced only after the loop).
    const vectors = new Map<string, Float32Array>();
    let step = 0;
    for (const [h, v] of this.vectors) {
      if (wanted.has(h)) vectors.set(h, v);
      if (++step % STEP_CHUNK === 0) await slices.pause();
    }
    const missing: string[] = [];
    for (const h of wanted) {
      if (!vectors.has(h)) missing.push(h);
      if (++step % STEP_CHUNK === 0) await slices.pause();
    }
    // All 40,000 vectors on a first load.
    for (const [h, v] of await this.store.load(missing)) {
      vectors.set(h, v);
      if (++step % STEP_CHUNK === 0) await slices.pause();
    }
    this.vectors = vectors;
    // The spare is this build's alone from here: no thread scans it, and release() during the build sets a new one.
    const spare = this.spare;
    this.spare = null;
    // Built in slices while searches scan the current matrix; swapped in once every row is written. The caller
    // serialises reloads (CoalescedRun), so two builds never write at once.
    const matrix = await buildMatrixInSlices(this.courses, vectors, spare, slices);
    this.retired = this.current === EMPTY_MATRIX ? null : this.current;
    this.current = matrix;
    this.built++;
    this.catalogueStamp = stamp;
    this.vectorStamp = vectorStamp;
    return true;
  }

  /**
   * The thread that scans the matrices scans `generation` from now on (and never an earlier one again): the matrix it
   * replaced becomes the spare the next reload writes into. Without it every reload would take new memory, and a
   * shared memory is freed only when both threads have collected their garbage.
   */
  release(generation: number): void {
    if (generation !== this.built || !this.retired) return;
    this.spare = this.retired;
    this.retired = null;
  }
}

// Courses or vectors gone through between two looks at the clock in refresh() (~0.5 ms).
const STEP_CHUNK = 1024;
// Rows filled between two looks at the clock in buildMatrixInSlices(): ~1 ms at 512 dimensions and two texts a course.
const FILL_CHUNK = 256;

/**
 * One row per course: the sum of its texts' vectors (ENCODER.texts, each times its weight), made unit length. The scan
 * costs the same as with one text (a course whose texts are not all encoded yet uses those that are). In one
 * synchronous step: the reference buildMatrixInSlices() equals, and bench/sentence-reload.ts's base.
 */
export function buildMatrix(courses: CourseTexts[], vectors: Map<string, Float32Array>, spare: SentenceMatrix | null): SentenceMatrix {
  const matrix = emptyMatrix(courses, vectors, spare);
  fillRows(matrix, vectors, 0, matrix.kept.length);
  return { ids: matrix.ids, rows: matrix.rows };
}

/**
 * buildMatrix() in slices between which the event loop serves other work (TimeSlices): the fill takes ~80 ms at
 * 20,000 courses, which every request arriving during a reload would otherwise wait. The rows are the same floats,
 * each computed by the same code; nothing reads the matrix before the caller swaps it in.
 */
export async function buildMatrixInSlices(
  courses: CourseTexts[],
  vectors: Map<string, Float32Array>,
  spare: SentenceMatrix | null,
  slices = new TimeSlices(),
): Promise<SentenceMatrix> {
  const matrix = emptyMatrix(courses, vectors, spare);
  await slices.pause();
  for (let r = 0; r < matrix.kept.length; r = Math.min(matrix.kept.length, r + FILL_CHUNK)) {
    fillRows(matrix, vectors, r, Math.min(matrix.kept.length, r + FILL_CHUNK));
    await slices.pause();
  }
  return { ids: matrix.ids, rows: matrix.rows };
}

interface Unfilled extends SentenceMatrix {
  /** The courses with a row, in row order. */
  kept: CourseTexts[];
  /** One sum array for every row (see fillRows). */
  sum: Float32Array;
}

/** The courses that have a vector, and the matrix's memory for them, rows not written yet. */
function emptyMatrix(courses: CourseTexts[], vectors: Map<string, Float32Array>, spare: SentenceMatrix | null): Unfilled {
  const D = SENTENCE_DIMENSIONS;
  const kept = courses.filter((c) => c.hashes.some((h) => vectors.has(h)));
  // The int8 copy only pays where a search asks for under a quarter of the rows (dotsOfBest): quantising costs ~15 ms
  // per 1,000 rows at each rebuild, for nothing on a catalogue of a few thousand courses. Only room for it is taken
  // here: the query encoder's thread, which scans the matrix, writes the copy (quantize) in slices between its scans,
  // so that a reload at 20,000 courses does not hold the event loop for the 120–300 ms it takes.
  const coarse = kept.length > 4 * FEEDBACK_POOL;
  // Sized for every course of the catalogue and a tenth more: the rows grow as an encoding run stores vectors, and
  // later reloads then write into a spare matrix's memory instead of taking new memory.
  const rows = DotKernel.create(kept.length, true, D, true, coarse, { capacity: Math.ceil(courses.length * 1.1), spare: spare?.rows });
  return { ids: Int32Array.from(kept, (c) => c.id), rows, kept, sum: new Float32Array(D) };
}

/** Writes rows `from` to `to` (exclusive). */
function fillRows(matrix: Unfilled, vectors: Map<string, Float32Array>, from: number, to: number): void {
  const D = SENTENCE_DIMENSIONS;
  const { kept, rows, sum } = matrix;
  // One sum array for every row, made unit length straight into the matrix: a new array per row and per unit() took
  // half of this loop's time at 20,000 courses, all of it on the event loop.
  for (let r = from; r < to; r++) {
    const c = kept[r];
    sum.fill(0);
    for (let t = 0; t < c.hashes.length; t++) {
      const v = vectors.get(c.hashes[t]);
      const w = c.weights[t];
      if (v) for (let i = 0; i < D; i++) sum[i] += w * v[i];
    }
    unitInto(sum, rows.matrix, r * D);
  }
}
