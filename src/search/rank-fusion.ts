import { FUSION } from './ranking-weights';

// The usual constant of reciprocal rank fusion (Cormack et al.): damps the weight of the very first ranks.
const K = 60;

/** Reciprocal rank fusion with a weight per ranking: each id scores Σ weight / (K + rank). Best first. */
export function weightedRankFusion(rankings: Array<{ ids: number[]; weight: number }>): Array<{ id: number; score: number }> {
  const scores = new Map<number, number>();
  for (const { ids, weight } of rankings) {
    ids.forEach((id, i) => scores.set(id, (scores.get(id) ?? 0) + weight / (K + i + 1)));
  }
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || a.id - b.id);
}

/** Reciprocal rank fusion of several rankings of ids, best first, with each id's fused score. */
export function reciprocalRankFusion(rankings: number[][]): Array<{ id: number; score: number }> {
  const scores = new Map<number, number>();
  for (const ranking of rankings) {
    ranking.forEach((id, i) => scores.set(id, (scores.get(id) ?? 0) + 1 / (K + i + 1)));
  }
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || a.id - b.id);
}

/**
 * Score fusion (CombSUM of standard scores): each ranking's scores are standardised over the candidates it returned,
 * z = (score − mean) / standard deviation, so that a ranking counts by how far a course stands out among its own
 * candidates, whatever the scale of its scores; a course a ranking did not return gets that ranking's lowest z. Each
 * id scores Σ weight × z. Best first.
 */
export function standardScoreFusion(rankings: Array<{ hits: Array<{ id: number; score: number }>; weight: number }>): Array<{ id: number; score: number }> {
  const standardised = rankings
    .filter((r) => r.hits.length && r.weight)
    .map(({ hits, weight }) => {
      const mean = hits.reduce((sum, h) => sum + h.score, 0) / hits.length;
      const sd = Math.sqrt(hits.reduce((sum, h) => sum + (h.score - mean) ** 2, 0) / hits.length);
      const z = new Map(hits.map((h) => [h.id, sd ? (h.score - mean) / sd : 0]));
      return { z, weight, floor: Math.min(...z.values()) };
    });
  const ids = new Set(standardised.flatMap((r) => [...r.z.keys()]));
  return [...ids]
    .map((id) => ({ id, score: standardised.reduce((sum, r) => sum + r.weight * (r.z.get(id) ?? r.floor), 0) }))
    .sort((a, b) => b.score - a.score || a.id - b.id);
}

/**
 * The fusion when the lexical ranking leads (some course names every concept): weighted reciprocal rank, the lexical
 * ranking at FUSION.lexicalStrong and the others at their own small weights, which reorder courses the lexical ranking
 * puts close together. With `keepGaps`, a course the lexical ranking scores clearly lower than the one before it (by
 * more than FUSION.lexicalGap of that one's score) stays below it, and the others reorder only within the runs of
 * close scores; courses only the others returned come after the lexical ranking's, as they do anyway.
 */
export function lexicalLedFusion(
  lexical: { hits: Array<{ id: number; score: number }> },
  others: Array<{ ids: number[]; weight: number }>,
  keepGaps = false,
): Array<{ id: number; score: number }> {
  const fused = weightedRankFusion([{ ids: lexical.hits.map((h) => h.id), weight: FUSION.lexicalStrong }, ...others]);
  if (!keepGaps) return fused;
  const run = new Map<number, number>();
  let runs = 0;
  let previous = Infinity;
  for (const h of lexical.hits) {
    if (h.score < previous * (1 - FUSION.lexicalGap)) runs++;
    previous = h.score;
    run.set(h.id, runs);
  }
  const inLexical = fused.filter((f) => run.has(f.id)).sort((a, b) => run.get(a.id)! - run.get(b.id)! || b.score - a.score || a.id - b.id);
  // Scores stay non-increasing down the list: a course kept above one the others prefer takes that one's score.
  let floor = -Infinity;
  const ordered = [...inLexical, ...fused.filter((f) => !run.has(f.id))].reverse().map((f) => {
    floor = Math.max(f.score, floor);
    return { id: f.id, score: floor };
  });
  return ordered.reverse();
}
