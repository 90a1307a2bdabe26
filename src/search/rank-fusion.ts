// The usual constant of reciprocal rank fusion (Cormack et al.): damps the weight of the very first ranks.
const K = 60;

/** Reciprocal rank fusion of several rankings of ids, best first, with each id's fused score. */
export function reciprocalRankFusion(rankings: number[][]): Array<{ id: number; score: number }> {
  const scores = new Map<number, number>();
  for (const ranking of rankings) {
    ranking.forEach((id, i) => scores.set(id, (scores.get(id) ?? 0) + 1 / (K + i + 1)));
  }
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || a.id - b.id);
}

/** Cosine similarity of two vectors of the same size (0 when either is all zeros). */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}
