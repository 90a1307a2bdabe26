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
