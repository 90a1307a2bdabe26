import { DIMENSIONS } from './vectors';

/** dot-kernel.wat, compiled (wabt's wat2wasm, SIMD on); test/unit/dot-kernel.test.ts checks the bytes against the source. */
export const DOT_KERNEL_WASM = Buffer.from(
  'AGFzbQEAAAABCAFgBH9/f38AAwIBAAUDAQABBxECBm1lbW9yeQIABGRvdHMAAAqSAQGPAQIDfwF7AkADQCAEIAFPDQH9DAAAAAAAAAAAAAAAAAAAAAAhB0EAIQUgACAEQZADbGohBgNAIAcgBiAFav0ABAAgAiAFav0ABAD95gH95AEhByAFQRBqIQUgBUGQA0kNAAsgAyAEQQJ0aiAH/R8AIAf9HwGSIAf9HwIgB/0fA5KSOAIAIARBAWohBAwACwsL',
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
  dots(matrix: number, rows: number, query: number, out: number): void;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

const ROW_BYTES = DIMENSIONS * 4; // 400 bytes, dot-kernel.wat's constant
const PAGE = 65_536;
let compiled: object | null | undefined;

/** The compiled kernel, or null where this runtime has no WebAssembly SIMD (the scans then run in JavaScript). */
function kernelModule(): object | null {
  // The kernel's rows are 100 floats (a constant of the WAT): other dimensions take the JavaScript path.
  if (compiled === undefined) compiled = DIMENSIONS === 100 && wasm.validate(DOT_KERNEL_WASM) ? new wasm.Module(DOT_KERNEL_WASM) : null;
  return compiled;
}

/**
 * A matrix of `rows` vectors (DIMENSIONS floats each) and the scan every semantic search makes over it: the dot product
 * of one query vector with every row. In WebAssembly with 128-bit SIMD the scan of 20,000 rows takes about 0.2 ms,
 * against 1.3–2.5 ms in JavaScript (bench: `npm run bench:search`). Fill `matrix` (a view of the kernel's memory) once,
 * then call `dots` as often as needed.
 */
export class DotKernel {
  private constructor(
    /** The rows, row r at r × DIMENSIONS. Writable until the first scan; never resized. */
    readonly matrix: Float32Array,
    readonly rows: number,
    private readonly wasm: { exports: KernelExports; query: Float32Array; out: Float32Array; queryAt: number; outAt: number } | null,
  ) {}

  static create(rows: number, useSimd = true): DotKernel {
    const module = useSimd ? kernelModule() : null;
    if (!module) return new DotKernel(new Float32Array(rows * DIMENSIONS), rows, null);
    const exports = new wasm.Instance(module, {}).exports as KernelExports;
    const queryAt = rows * ROW_BYTES;
    const outAt = queryAt + ROW_BYTES;
    const bytes = outAt + rows * 4;
    const pages = Math.ceil(bytes / PAGE);
    if (pages > 1) exports.memory.grow(pages - 1);
    // Views made after the one growth: they stay attached, as the memory never grows again.
    const buffer = exports.memory.buffer;
    return new DotKernel(new Float32Array(buffer, 0, rows * DIMENSIONS), rows, {
      exports,
      query: new Float32Array(buffer, queryAt, DIMENSIONS),
      out: new Float32Array(buffer, outAt, rows),
      queryAt,
      outAt,
    });
  }

  /** Whether the scans run in WebAssembly SIMD (false: the JavaScript fallback). */
  get simd(): boolean {
    return this.wasm !== null;
  }

  /** Each row's dot product with `query`, as a new array (the caller may keep it across scans). */
  dots(query: Float32Array): Float32Array {
    const D = DIMENSIONS;
    if (this.wasm) {
      const { exports, queryAt, outAt } = this.wasm;
      this.wasm.query.set(query.subarray(0, D));
      exports.dots(0, this.rows, queryAt, outAt);
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
