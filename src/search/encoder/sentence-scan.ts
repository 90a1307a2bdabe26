import { DotKernel, SharedDotKernel } from '../semantic/dot-kernel';
import { topScores } from '../semantic/top-scores';
import { SENTENCE_DIMENSIONS, unit } from './sentence-model';

/** The vectors one search scans: row r is course ids[r]'s. */
export interface SentenceMatrix {
  ids: Int32Array;
  rows: DotKernel;
  /**
   * Where the thread that scans this matrix for every query writes the first pass (one float per row): allocated
   * once, not per scan. Without it each scan takes a new array.
   */
  firstPass?: Float32Array;
}

/** A matrix as the query encoder's thread receives it: the rows stay in the memory shared with the event loop. */
export interface SharedSentenceMatrix {
  ids: Int32Array;
  rows: SharedDotKernel;
  /** Counts the matrices built in this process: a scan says which one it read. */
  generation: number;
}

/** How a scan ranks: ENCODER's figures, sent with each query (the eval may override them on the event loop's side). */
export interface ScanOptions {
  max: number;
  floor: number;
  feedbackDocs: number;
  feedbackWeight: number;
}

export interface SentenceHit {
  id: number;
  score: number;
  cosine: number;
}

/** A scan's hits in three arrays (one message, no object per hit to clone): hit i is ids[i], scores[i], cosines[i]. */
export interface PackedHits {
  ids: Int32Array;
  scores: Float64Array;
  cosines: Float64Array;
}

// Courses the feedback pass scores again: the first pass's best (on the tuning sets, 300 or all gave the same rankings).
export const FEEDBACK_POOL = 1000;

export const EMPTY_MATRIX: SentenceMatrix = { ids: new Int32Array(), rows: DotKernel.create(0, false, SENTENCE_DIMENSIONS) };

export function shareMatrix(matrix: SentenceMatrix, generation: number): SharedSentenceMatrix {
  return { ids: matrix.ids, rows: matrix.rows.share(), generation };
}

export function attachMatrix(shared: SharedSentenceMatrix): SentenceMatrix {
  return { ids: shared.ids, rows: DotKernel.attach(shared.rows), firstPass: new Float32Array(shared.ids.length) };
}

/**
 * Courses by cosine to the unit vector `query`, best first, at least `floor`. With feedback, the query then moves
 * towards the mean of the `feedbackDocs` courses it is closest to (Rocchio pseudo-relevance feedback: a learner's few
 * words gain the vocabulary of the courses they point to), and the first pass's best FEEDBACK_POOL courses are scored
 * again with it: a few hundred dot products instead of a second scan. `cosine` is each course's cosine to the query as
 * typed: feedback raises every candidate's score, so only it says how close a course is to what was asked.
 */
export function scanMatrix(matrix: SentenceMatrix, query: Float32Array, options: ScanOptions): SentenceHit[] {
  const { ids, rows } = matrix;
  const { max, floor, feedbackDocs, feedbackWeight } = options;
  if (!ids.length) return [];
  const feedback = Boolean(feedbackDocs && feedbackWeight);
  // Only the best `max` (or the feedback pool) are read out of the first pass: the other rows' products are not
  // computed (-Infinity), and those read are the full scan's, bit for bit.
  const first = rows.dotsOfBest(query, feedback ? Math.max(FEEDBACK_POOL, max) : max, matrix.firstPass);
  if (!feedback) return topScores(first, max, floor).map((c) => ({ id: ids[c], score: first[c], cosine: first[c] }));
  const D = SENTENCE_DIMENSIONS;
  const m = rows.matrix;
  const pool = topScores(first, Math.max(FEEDBACK_POOL, max), -Infinity);
  const moved = Float32Array.from(query);
  const share = feedbackWeight / Math.min(feedbackDocs, pool.length);
  for (const c of pool.slice(0, feedbackDocs)) for (let i = 0; i < D; i++) moved[i] += share * m[c * D + i];
  const again = rows.doubleDots(unit(moved), pool);
  const scored = new Array<SentenceHit>(pool.length);
  for (let p = 0; p < pool.length; p++) scored[p] = { id: ids[pool[p]], score: again[p], cosine: first[pool[p]] };
  return scored
    .filter((h) => h.score >= floor)
    .sort((a, b) => b.score - a.score || a.id - b.id)
    .slice(0, max);
}

export function packHits(hits: SentenceHit[]): PackedHits {
  return {
    ids: Int32Array.from(hits, (h) => h.id),
    scores: Float64Array.from(hits, (h) => h.score),
    cosines: Float64Array.from(hits, (h) => h.cosine),
  };
}

export function unpackHits(packed: PackedHits): SentenceHit[] {
  const hits = new Array<SentenceHit>(packed.ids.length);
  for (let i = 0; i < hits.length; i++) hits[i] = { id: packed.ids[i], score: packed.scores[i], cosine: packed.cosines[i] };
  return hits;
}
