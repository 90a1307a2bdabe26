/** nDCG@k with binary gains, recall@k (over all relevant) and reciprocal rank of the first relevant result within k. */
export function scoreRanking(ranked: string[], relevant: Set<string>, k = 10): { ndcg: number; recall: number; rr: number } {
  const top = ranked.slice(0, k);
  let dcg = 0;
  let found = 0;
  let rr = 0;
  top.forEach((id, i) => {
    if (!relevant.has(id)) return;
    dcg += 1 / Math.log2(i + 2);
    found++;
    if (!rr) rr = 1 / (i + 1);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
  return { ndcg: ideal ? dcg / ideal : 0, recall: relevant.size ? found / relevant.size : 0, rr };
}

export function mean(values: number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}
