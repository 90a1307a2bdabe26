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
    const parsed = (await wabt()).parseWat('dot-kernel.wat', source, { simd: true });
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
});
