/** Dimensions of the word vectors. Hot loops copy it to a local constant: an imported binding is a property read. */
export const DIMENSIONS = 100;

/** A stored word vector (100 signed bytes) as a unit Float32Array. */
export function fromBytes(bytes: Uint8Array): Float32Array {
  const D = DIMENSIONS;
  const out = new Float32Array(D);
  let n = 0;
  for (let i = 0; i < D; i++) {
    const b = bytes[i];
    out[i] = b > 127 ? b - 256 : b;
    n += out[i] * out[i];
  }
  const inv = n ? 1 / Math.sqrt(n) : 0;
  for (let i = 0; i < D; i++) out[i] *= inv;
  return out;
}

// Smooth inverse frequency (Arora et al., 2017): a word's weight is A / (A + p(word)), p from its frequency rank by
// Zipf's law (p ≈ 1 / (rank × H), H ≈ 13 for this vocabulary). "the" weighs 0.01, a word ranked 10,000th 0.99.
export const SIF = { a: 1e-3, queryA: 3e-5 };
const HARMONIC = 13;

export function sifWeight(rank: number, a = SIF.a): number {
  return a / (a + 1 / (rank * HARMONIC));
}

/** Adds `weight × v` into `into` at row `at` (rows of DIMENSIONS floats). */
export function addScaled(into: Float32Array, at: number, v: Float32Array, weight: number): void {
  const D = DIMENSIONS;
  const o = at * D;
  for (let i = 0; i < D; i++) into[o + i] += weight * v[i];
}

/** Removes the component along the unit vector `pc` from row `at`, then scales the row to unit length. */
export function finishRow(rows: Float32Array, at: number, pc: Float32Array | null): void {
  const D = DIMENSIONS;
  const o = at * D;
  if (pc) {
    let d = 0;
    for (let i = 0; i < D; i++) d += rows[o + i] * pc[i];
    for (let i = 0; i < D; i++) rows[o + i] -= d * pc[i];
  }
  let n = 0;
  for (let i = 0; i < D; i++) n += rows[o + i] * rows[o + i];
  const inv = n ? 1 / Math.sqrt(n) : 0;
  for (let i = 0; i < D; i++) rows[o + i] *= inv;
}

const MIN_TEXTS_FOR_COMPONENT = 20;

/**
 * The first principal component of the rows (power iteration on their covariance, uncentred as in SIF): the
 * direction every averaged text shares ("a course about something"), which says nothing about any one of them.
 */
export function principalComponent(rows: Float32Array, count: number): Float32Array | null {
  // A handful of texts has no common direction worth removing: it would be one of the texts themselves.
  if (count < MIN_TEXTS_FOR_COMPONENT) return null;
  const D = DIMENSIONS;
  let v = new Float32Array(D).fill(1 / Math.sqrt(D));
  for (let iter = 0; iter < 20; iter++) {
    const next = new Float32Array(D);
    for (let r = 0; r < count; r++) {
      const o = r * D;
      let d = 0;
      for (let i = 0; i < D; i++) d += rows[o + i] * v[i];
      for (let i = 0; i < D; i++) next[i] += d * rows[o + i];
    }
    let n = 0;
    for (let i = 0; i < D; i++) n += next[i] * next[i];
    if (!n) return null;
    const inv = 1 / Math.sqrt(n);
    for (let i = 0; i < D; i++) next[i] *= inv;
    v = next;
  }
  return v;
}

/** Courses handled between two yields to the event loop while an index is built (see yieldEvery). */
const BUILD_SLICE = 100;

/**
 * Lets other work run every BUILD_SLICE items of a long build: an index of a large catalogue takes seconds of CPU,
 * and one synchronous block of that length would hold every request of the process (and time out its Redis commands).
 */
export async function yieldEvery(i: number): Promise<void> {
  if (i > 0 && i % BUILD_SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
}
