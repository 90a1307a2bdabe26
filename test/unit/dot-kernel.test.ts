import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import wabt from 'wabt';
import { DOT_KERNEL_WASM, DotKernel } from '../../src/search/semantic/dot-kernel';
import { DIMENSIONS } from '../../src/search/semantic/vectors';

function filled(rows: number, seed: number): DotKernel[] {
  const simd = DotKernel.create(rows);
  const js = DotKernel.create(rows, false);
  let x = seed;
  for (let i = 0; i < rows * DIMENSIONS; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    simd.matrix[i] = js.matrix[i] = x / 2 ** 30 - 1;
  }
  return [simd, js];
}

describe('the SIMD dot-product kernel', () => {
  it('is the compiled dot-kernel.wat, byte for byte', async () => {
    const source = readFileSync(join(__dirname, '../../src/search/semantic/dot-kernel.wat'), 'utf8');
    const parsed = (await wabt()).parseWat('dot-kernel.wat', source, { simd: true, threads: true });
    const { buffer } = parsed.toBinary({});
    parsed.destroy();
    expect(Buffer.from(buffer).equals(DOT_KERNEL_WASM)).toBe(true);
  });

  it('runs in WebAssembly SIMD on this Node', () => {
    expect(DotKernel.create(3).simd).toBe(true);
  });

  it.each([0, 1, 7, 20_001])('gives the JavaScript dot products for %i rows', (rows) => {
    const [simd, js] = filled(rows, rows + 1);
    const query = Float32Array.from({ length: DIMENSIONS }, (_, i) => Math.sin(i));
    const a = simd.dots(query);
    const b = js.dots(query);
    expect(a).toHaveLength(rows);
    for (let r = 0; r < rows; r++) expect(Math.abs(a[r] - b[r])).toBeLessThan(1e-4);
    if (rows > 0) {
      let exact = 0;
      for (let i = 0; i < DIMENSIONS; i++) exact += js.matrix[i] * query[i];
      expect(a[0]).toBeCloseTo(exact, 4);
    }
  });

  it('answers each scan in an array of its own', () => {
    const [kernel] = filled(5, 3);
    const first = kernel.dots(Float32Array.from({ length: DIMENSIONS }, () => 1));
    const kept = Float32Array.from(first);
    kernel.dots(Float32Array.from({ length: DIMENSIONS }, () => -1));
    expect(first).toEqual(kept);
  });

  it.each([1, 2, 7, 1000])('gives %i listed rows the double-precision sums of a JavaScript loop, bit for bit', (count) => {
    const dims = 512;
    const rows = 1200;
    const listed = DotKernel.create(rows, true, dims, true);
    let x = count;
    for (let i = 0; i < rows * dims; i++) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      listed.matrix[i] = x / 2 ** 30 - 1;
    }
    const query = Float32Array.from({ length: dims }, (_, i) => Math.cos(i * 0.37) / 11);
    // Distinct rows in no particular order, as the feedback pass lists them (best first).
    const list = Array.from({ length: count }, (_, k) => (k * 7919) % rows);
    const got = listed.doubleDots(query, list);
    expect(got).toHaveLength(count);
    list.forEach((r, k) => {
      let s = 0;
      for (let i = 0; i < dims; i++) s += listed.matrix[r * dims + i] * query[i];
      expect(Object.is(got[k], s)).toBe(true);
    });
    // A kernel made without the room for lists answers the same in JavaScript.
    const plain = DotKernel.create(rows, true, dims);
    plain.matrix.set(listed.matrix);
    expect(plain.doubleDots(query, list)).toEqual(got);
  });

  // One matrix for every k: filling and quantising 4,001 rows of 512 is most of this test's time.
  it('gives the best 1, 300 and 1000 rows the full scan’s products, bit for bit, after its coarse int8 scan', () => {
    const dims = 512;
    const rows = 4001;
    const full = DotKernel.create(rows, true, dims, true);
    const coarse = DotKernel.create(rows, true, dims, true, true);
    let x = 1;
    const random = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 30 - 1;
    // Rows around a few centres (close products, as course texts have), unit length, some repeated (exact ties).
    const centres = Array.from({ length: 8 }, () => Float32Array.from({ length: dims }, random));
    const m = full.matrix;
    for (let r = 0; r < rows; r++) {
      const at = r * dims;
      if (r % 97 === 5) {
        m.copyWithin(at, at - dims, at);
        continue;
      }
      let n = 0;
      for (let i = 0; i < dims; i++) {
        m[at + i] = centres[r % 8][i] + random();
        n += m[at + i] * m[at + i];
      }
      for (let i = 0; i < dims; i++) m[at + i] /= Math.sqrt(n);
    }
    coarse.matrix.set(full.matrix);
    coarse.quantize();
    for (const [t, k] of [1, 300, 1000].entries()) {
      const q = Float32Array.from({ length: dims }, (_, i) => centres[t][i] + random());
      let n = 0;
      for (const f of q) n += f * f;
      const query = q.map((f) => f / Math.sqrt(n));
      const exact = full.dots(query);
      const best = coarse.dotsOfBest(query, k);
      const order = (scores: Float32Array) => [...scores.keys()].sort((a, b) => scores[b] - scores[a] || a - b).slice(0, k);
      const top = order(exact);
      expect(order(best)).toEqual(top);
      for (const r of top) expect(Object.is(best[r], exact[r])).toBe(true);
      // Far fewer rows than all are computed in float32.
      expect(best.filter((s) => s !== -Infinity).length).toBeLessThan(rows / 2);
    }
  });

  it('scans in full without its int8 copy, or when most rows are asked for', () => {
    const kernel = DotKernel.create(40, true, 512, true, true);
    for (let i = 0; i < kernel.matrix.length; i++) kernel.matrix[i] = Math.sin(i);
    const query = Float32Array.from({ length: 512 }, (_, i) => Math.cos(i));
    expect(kernel.dotsOfBest(query, 5)).toEqual(kernel.dots(query));
    kernel.quantize();
    expect(kernel.dotsOfBest(query, 20)).toEqual(kernel.dots(query));
  });

  it('writes the same int8 copy in slices, and scans in full until the last slice', () => {
    const rows = 4001;
    const whole = DotKernel.create(rows, true, 512, true, true);
    const sliced = DotKernel.create(rows, true, 512, true, true);
    for (let i = 0; i < whole.matrix.length; i++) whole.matrix[i] = Math.sin(i * 0.37) * Math.cos(i % 511);
    sliced.matrix.set(whole.matrix);
    whole.quantize();
    const query = Float32Array.from({ length: 512 }, (_, i) => Math.cos(i * 0.11));
    const full = whole.dots(query);
    expect(sliced.unquantized).toBe(true);
    for (let from = 0; from < rows; from += 1000) {
      // Until the copy is whole, the full scan: every product computed.
      expect(sliced.dotsOfBest(query, 10)).toEqual(full);
      sliced.quantize(from, from + 1000);
    }
    expect(sliced.unquantized).toBe(false);
    const best = sliced.dotsOfBest(query, 10);
    expect(best.filter((s) => s !== -Infinity).length).toBeLessThan(rows / 2);
    expect(best).toEqual(whole.dotsOfBest(query, 10));
  });
});
