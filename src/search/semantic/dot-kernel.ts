import { DIMENSIONS } from './vectors';

/** dot-kernel.wat, compiled (wabt's wat2wasm, SIMD on); test/unit/dot-kernel.test.ts checks the bytes against the source. */
export const DOT_KERNEL_WASM = Buffer.from(
  'AGFzbQEAAAABEgJgBX9/f39/AGAGf39/f39/AAMDAgABBQMBAAEHHAMGbWVtb3J5AgAEZG90cwAACGRvdHNfZjY0AAEK+gICjQECA38BewJAA0AgBSABTw0B/QwAAAAAAAAAAAAAAAAAAAAAIQhBACEGIAAgBSAEbGohBwNAIAggByAGav0ABAAgAiAGav0ABAD95gH95AEhCCAGQRBqIQYgBiAESQ0ACyADIAVBAnRqIAj9HwAgCP0fAZIgCP0fAiAI/R8DkpI4AgAgBUEBaiEFDAALCwvoAQIFfwJ8AkADQCAGIAJPDQEgACABIAZBAnRqKAIAIAVBAnRsaiEIIAghCSAGQQFqIAJJBEAgACABIAZBAWpBAnRqKAIAIAVBAnRsaiEJC0QAAAAAAAAAACELRAAAAAAAAAAAIQxBACEHIAMhCgNAIAsgCCoCALsgCisDAKKgIQsgDCAJKgIAuyAKKwMAoqAhDCAIQQRqIQggCUEEaiEJIApBCGohCiAHQQFqIQcgByAFSQ0ACyAEIAZBA3RqIAs5AwAgBkEBaiACSQRAIAQgBkEBakEDdGogDDkDAAsgBkECaiEGDAALCws=',
  'base64',
);

/** The part of the WebAssembly global used here (@types/node 20 does not declare it; TypeScript's DOM library does). */
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}
interface KernelExports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  dots(matrix: number, rows: number, query: number, out: number, rowBytes: number): void;
  dots_f64(matrix: number, list: number, count: number, query: number, out: number, dims: number): void;
}

/** Room for doubleDots(): a list of row numbers, the query in doubles, one double out per listed row. */
interface Listed {
  list: Int32Array;
  query: Float64Array;
  out: Float64Array;
  listAt: number;
  queryAt: number;
  outAt: number;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

const PAGE = 65_536;
let compiled: object | null | undefined;

/** The compiled kernel, or null where this runtime has no WebAssembly SIMD (the scans then run in JavaScript). */
function kernelModule(): object | null {
  if (compiled === undefined) compiled = wasm.validate(DOT_KERNEL_WASM) ? new wasm.Module(DOT_KERNEL_WASM) : null;
  return compiled;
}

/**
 * A matrix of `rows` vectors (`dims` floats each: DIMENSIONS unless told) and the scan every semantic search makes over it: the dot product
 * of one query vector with every row. In WebAssembly with 128-bit SIMD the scan of 20,000 rows takes about 0.2 ms,
 * against 1.3–2.5 ms in JavaScript (bench: `npm run bench:search`). Fill `matrix` (a view of the kernel's memory) once,
 * then call `dots` as often as needed.
 */
export class DotKernel {
  private constructor(
    /** The rows, row r at r × dims. Writable until the first scan; never resized. */
    readonly matrix: Float32Array,
    readonly rows: number,
    readonly dims: number,
    private readonly wasm: { exports: KernelExports; query: Float32Array; out: Float32Array; queryAt: number; outAt: number } | null,
    private readonly listed: Listed | null = null,
  ) {}

  /** `listed`: room for doubleDots() over up to `rows` rows (13 bytes a row more). */
  static create(rows: number, useSimd = true, dims = DIMENSIONS, listed = false): DotKernel {
    // The kernel reads four lanes at a time: other widths take the JavaScript path.
    const module = useSimd && dims % 4 === 0 ? kernelModule() : null;
    if (!module) return new DotKernel(new Float32Array(rows * dims), rows, dims, null);
    const exports = new wasm.Instance(module, {}).exports as KernelExports;
    const rowBytes = dims * 4;
    const queryAt = rows * rowBytes;
    const outAt = queryAt + rowBytes;
    // The doubles start on a multiple of 8.
    const listAt = outAt + rows * 4;
    const doubleQueryAt = Math.ceil((listAt + rows * 4) / 8) * 8;
    const doubleOutAt = doubleQueryAt + dims * 8;
    const bytes = listed ? doubleOutAt + rows * 8 : outAt + rows * 4;
    const pages = Math.ceil(bytes / PAGE);
    if (pages > 1) exports.memory.grow(pages - 1);
    // Views made after the one growth: they stay attached, as the memory never grows again.
    const buffer = exports.memory.buffer;
    return new DotKernel(
      new Float32Array(buffer, 0, rows * dims),
      rows,
      dims,
      {
        exports,
        query: new Float32Array(buffer, queryAt, dims),
        out: new Float32Array(buffer, outAt, rows),
        queryAt,
        outAt,
      },
      listed
        ? {
            list: new Int32Array(buffer, listAt, rows),
            query: new Float64Array(buffer, doubleQueryAt, dims),
            out: new Float64Array(buffer, doubleOutAt, rows),
            listAt,
            queryAt: doubleQueryAt,
            outAt: doubleOutAt,
          }
        : null,
    );
  }

  /**
   * The dot products of the listed rows (distinct row numbers, at most `rows` of them) with `query`, each summed in
   * double precision in order, as `let s = 0; for (…) s += row[i] * query[i]` sums it: the same numbers, bit for bit, in
   * WebAssembly when the kernel was created `listed` (two rows at a time; about a fifth of the JavaScript loop's time).
   */
  doubleDots(query: Float32Array, rows: ArrayLike<number>): Float64Array {
    const D = this.dims;
    const l = this.listed;
    if (this.wasm && l && rows.length <= this.rows) {
      l.list.set(rows);
      l.query.set(query.subarray(0, D));
      this.wasm.exports.dots_f64(0, l.listAt, rows.length, l.queryAt, l.outAt, D);
      return l.out.slice(0, rows.length);
    }
    const out = new Float64Array(rows.length);
    const m = this.matrix;
    for (let k = 0; k < rows.length; k++) {
      const o = rows[k] * D;
      let s = 0;
      for (let i = 0; i < D; i++) s += m[o + i] * query[i];
      out[k] = s;
    }
    return out;
  }

  /** Whether the scans run in WebAssembly SIMD (false: the JavaScript fallback). */
  get simd(): boolean {
    return this.wasm !== null;
  }

  /** Each row's dot product with `query`, as a new array (the caller may keep it across scans). */
  dots(query: Float32Array): Float32Array {
    const D = this.dims;
    if (this.wasm) {
      const { exports, queryAt, outAt } = this.wasm;
      this.wasm.query.set(query.subarray(0, D));
      exports.dots(0, this.rows, queryAt, outAt, D * 4);
      return this.wasm.out.slice();
    }
    const out = new Float32Array(this.rows);
    const m = this.matrix;
    for (let r = 0, o = 0; r < this.rows; r++, o += D) {
      let s = 0;
      for (let i = 0; i < D; i++) s += m[o + i] * query[i];
      out[r] = s;
    }
    return out;
  }
}
