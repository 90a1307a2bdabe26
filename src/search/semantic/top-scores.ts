/**
 * Positions of the `k` highest scores at or above `floor`, best first, ties by position (a bounded min-heap in a typed
 * array, comparisons written out: no sort of every course, no closure or array growth per course scanned).
 */
export function topScores(scores: Float32Array, k: number, floor: number): number[] {
  const heap = new Int32Array(Math.max(0, Math.min(k, scores.length)));
  let n = 0;
  // The root is the worst kept: the lowest score, of the ties the highest position.
  for (let c = 0; c < scores.length; c++) {
    const s = scores[c];
    if (s < floor) continue;
    if (n < heap.length) {
      let i = n++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        const hp = heap[p];
        const sp = scores[hp];
        if (sp < s || (sp === s && hp > c)) break;
        heap[i] = hp;
        i = p;
      }
      heap[i] = c;
      continue;
    }
    if (!n) break;
    const h0 = heap[0];
    const s0 = scores[h0];
    if (!(s0 < s || (s0 === s && h0 > c))) continue;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      let m = l;
      let hm = heap[l];
      let sm = scores[hm];
      if (l + 1 < n) {
        const hr = heap[l + 1];
        const sr = scores[hr];
        if (sr < sm || (sr === sm && hr > hm)) {
          m = l + 1;
          hm = hr;
          sm = sr;
        }
      }
      if (!(sm < s || (sm === s && hm > c))) break;
      heap[i] = hm;
      i = m;
    }
    heap[i] = c;
  }
  return Array.from(heap.subarray(0, n)).sort((a, b) => scores[b] - scores[a] || a - b);
}
