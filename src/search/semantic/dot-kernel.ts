import { DIMENSIONS } from './vectors';

/** dot-kernel.wat, compiled (wabt's wat2wasm, SIMD on); test/unit/dot-kernel.test.ts checks the bytes against the source. */
export const DOT_KERNEL_WASM = Buffer.from(
  'AGFzbQEAAAABEgJgBX9/f39/AGAGf39/f39/AAISAQNlbnYGbWVtb3J5AgMBgIAEAwUEAAEBAAcrBARkb3RzAAAIZG90c19mNjQAAQtkb3RzX2xpc3RlZAACB2RvdHNfaTgAAwrSCASVBAQDfwF7A38EewJAA0AgBUEEaiABSw0B/QwAAAAAAAAAAAAAAAAAAAAAIQj9DAAAAAAAAAAAAAAAAAAAAAAhDf0MAAAAAAAAAAAAAAAAAAAAACEO/QwAAAAAAAAAAAAAAAAAAAAAIQ9BACEGIAAgBSAEbGohByAHIARqIQkgCSAEaiEKIAogBGohCwNAIAIgBmr9AAQAIQwgCCAHIAZq/QAEACAM/eYB/eQBIQggDSAJIAZq/QAEACAM/eYB/eQBIQ0gDiAKIAZq/QAEACAM/eYB/eQBIQ4gDyALIAZq/QAEACAM/eYB/eQBIQ8gBkEQaiEGIAYgBEkNAAsgAyAFQQJ0aiAI/R8AIAj9HwGSIAj9HwIgCP0fA5KSOAIAIAMgBUECdGogDf0fACAN/R8BkiAN/R8CIA39HwOSkjgCBCADIAVBAnRqIA79HwAgDv0fAZIgDv0fAiAO/R8DkpI4AgggAyAFQQJ0aiAP/R8AIA/9HwGSIA/9HwIgD/0fA5KSOAIMIAVBBGohBQwACwsCQANAIAUgAU8NAf0MAAAAAAAAAAAAAAAAAAAAACEIQQAhBiAAIAUgBGxqIQcDQCAIIAcgBmr9AAQAIAIgBmr9AAQA/eYB/eQBIQggBkEQaiEGIAYgBEkNAAsgAyAFQQJ0aiAI/R8AIAj9HwGSIAj9HwIgCP0fA5KSOAIAIAVBAWohBQwACwsL6AECBX8CfAJAA0AgBiACTw0BIAAgASAGQQJ0aigCACAFQQJ0bGohCCAIIQkgBkEBaiACSQRAIAAgASAGQQFqQQJ0aigCACAFQQJ0bGohCQtEAAAAAAAAAAAhC0QAAAAAAAAAACEMQQAhByADIQoDQCALIAgqAgC7IAorAwCioCELIAwgCSoCALsgCisDAKKgIQwgCEEEaiEIIAlBBGohCSAKQQhqIQogB0EBaiEHIAcgBUkNAAsgBCAGQQN0aiALOQMAIAZBAWogAkkEQCAEIAZBAWpBA3RqIAw5AwALIAZBAmohBgwACwsLmgECBH8BewJAA0AgBiACTw0BIAEgBkECdGooAgAhB/0MAAAAAAAAAAAAAAAAAAAAACEKQQAhCCAAIAcgBWxqIQkDQCAKIAkgCGr9AAQAIAMgCGr9AAQA/eYB/eQBIQogCEEQaiEIIAggBUkNAAsgBCAHQQJ0aiAK/R8AIAr9HwGSIAr9HwIgCv0fA5KSOAIAIAZBAWohBgwACwsLsgECA38CewJAA0AgBSABTw0B/QwAAAAAAAAAAAAAAAAAAAAAIQlBACEGIAAgBSAEbGohBwNAIAcgBmr9AAQAIQggCSAI/YcBIAIgBkEBdGr9AAQA/boB/a4BIQkgCSAI/YgBIAIgBkEBdGr9AAQQ/boB/a4BIQkgBkEQaiEGIAYgBEkNAAsgAyAFQQJ0aiAJ/RsAIAn9GwFqIAn9GwIgCf0bA2pqNgIAIAVBAWohBQwACwsL',
  'base64',
);

/** The part of the WebAssembly global used here (@types/node 20 does not declare it; TypeScript's DOM library does). */
interface WasmMemory {
  readonly buffer: ArrayBuffer | SharedArrayBuffer;
}
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
  Memory: new (descriptor: { initial: number; maximum: number; shared: boolean }) => WasmMemory;
}
interface KernelExports {
  dots(matrix: number, rows: number, query: number, out: number, rowBytes: number): void;
  dots_f64(matrix: number, list: number, count: number, query: number, out: number, dims: number): void;
  dots_listed(matrix: number, list: number, count: number, query: number, out: number, rowBytes: number): void;
  dots_i8(matrix: number, rows: number, query: number, out: number, dims: number): void;
}

/** Room for dotsOfBest()'s coarse scan: the rows in int8s, each with its scale and how far the int8s are from it. */
interface Coarse {
  matrix: Int8Array;
  query: Int16Array;
  out: Int32Array;
  matrixAt: number;
  queryAt: number;
  outAt: number;
  /** The three per-row figures below in one shared buffer (rows × 3 doubles): quantize() writes them for every thread. */
  perRow: Float64Array;
  scale: Float64Array;
  /** Euclidean distance of each row from its int8s times its scale. */
  error: Float64Array;
  /** Euclidean length of each row's int8s times its scale. */
  norm: Float64Array;
  /** Each scan's bounds, and the lower ones again for the selection (which reorders them): this thread's own. */
  lower: Float64Array;
  upper: Float64Array;
  selection: Float64Array;
  /** One int32, non-zero once quantize() has run: shared, so that a thread the kernel is handed to sees it. */
  ready: Int32Array;
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

/**
 * A kernel as another thread receives it (postMessage): its rows stay in the one shared memory, and the receiving
 * thread's DotKernel.attach() scans them. Only one thread may scan a kernel at a time: the query and the products
 * are written into the same memory (the thread that filled it hands it over and scans no more).
 */
export interface SharedDotKernel {
  memory: WasmMemory | null;
  /** The rows when there is no WebAssembly (memory null). */
  buffer: SharedArrayBuffer | null;
  rows: number;
  dims: number;
  listed: boolean;
  coarse: boolean;
  /** The int8 copy's per-row figures and whether quantize() has run (in the memory for the int8 copy: null without it). */
  perRow: Float64Array | null;
  ready: Int32Array | null;
}

const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

const PAGE = 65_536;
let compiled: object | null | undefined;

/** The compiled kernel, or null where this runtime has no WebAssembly SIMD (the scans then run in JavaScript). */
function kernelModule(): object | null {
  if (compiled === undefined) compiled = wasm.validate(DOT_KERNEL_WASM) ? new wasm.Module(DOT_KERNEL_WASM) : null;
  return compiled;
}

/** Where each part of a kernel's memory starts (bytes), and how many bytes it takes. */
function layout(rows: number, dims: number, listed: boolean, coarse: boolean) {
  const rowBytes = dims * 4;
  const queryAt = rows * rowBytes;
  const outAt = queryAt + rowBytes;
  // The doubles start on a multiple of 8.
  const listAt = outAt + rows * 4;
  const doubleQueryAt = Math.ceil((listAt + rows * 4) / 8) * 8;
  const doubleOutAt = doubleQueryAt + dims * 8;
  const withCoarse = listed && coarse && dims % 16 === 0;
  const coarseAt = Math.ceil((doubleOutAt + rows * 8) / 16) * 16;
  const coarseQueryAt = Math.ceil((coarseAt + rows * dims) / 16) * 16;
  const coarseOutAt = Math.ceil((coarseQueryAt + dims * 2) / 16) * 16;
  const bytes = withCoarse ? coarseOutAt + rows * 4 : listed ? doubleOutAt + rows * 8 : outAt + rows * 4;
  return { queryAt, outAt, listAt, doubleQueryAt, doubleOutAt, withCoarse, coarseAt, coarseQueryAt, coarseOutAt, bytes };
}

/**
 * A matrix of `rows` vectors (`dims` floats each: DIMENSIONS unless told) and the scan every semantic search makes over it: the dot product
 * of one query vector with every row. In WebAssembly with 128-bit SIMD the scan of 20,000 rows takes about 0.2 ms,
 * against 1.3–2.5 ms in JavaScript (bench: `npm run bench:search`). Fill `matrix` (a view of the kernel's memory) once,
 * then call `dots` as often as needed. The memory is a SharedArrayBuffer: share() hands the kernel to another thread
 * without copying it.
 */
export class DotKernel {
  private constructor(
    /** The rows, row r at r × dims. Writable until the first scan; never resized. */
    readonly matrix: Float32Array,
    readonly rows: number,
    readonly dims: number,
    private readonly wasm: { exports: KernelExports; query: Float32Array; out: Float32Array; queryAt: number; outAt: number } | null,
    private readonly listed: Listed | null,
    private readonly coarse: Coarse | null,
    private readonly shared: SharedDotKernel,
  ) {}

  /**
   * `listed`: room for doubleDots() over up to `rows` rows (13 bytes a row more); `coarse` (with `listed`, `dims` a
   * multiple of 16): room for dotsOfBest()'s int8 copy of the rows (`dims` + 28 bytes a row more). `room.capacity`:
   * the memory is sized for that many rows; `room.spare`: a kernel no thread scans any more, whose memory is written
   * again when big enough (a shared memory is freed only once every thread that saw it has collected its garbage, which
   * a thread that hardly allocates may not do for minutes: reused, a reload's matrix costs no new memory).
   */
  static create(
    rows: number,
    useSimd = true,
    dims = DIMENSIONS,
    listed = false,
    coarse = false,
    room: { capacity?: number; spare?: DotKernel | null } = {},
  ): DotKernel {
    // The kernel reads four lanes at a time: other widths take the JavaScript path.
    const simd = useSimd && dims % 4 === 0 && kernelModule() !== null;
    const { withCoarse, bytes } = layout(rows, dims, listed, coarse);
    const capacity = Math.max(rows, room.capacity ?? rows);
    const old = room.spare?.shared;
    if (
      simd &&
      old?.memory &&
      old.dims === dims &&
      old.memory.buffer.byteLength >= bytes &&
      (!withCoarse || (old.perRow && old.perRow.length >= 3 * rows && old.ready))
    ) {
      if (old.ready) old.ready[0] = 0;
      return DotKernel.attach({ ...old, rows, listed, coarse, perRow: withCoarse ? old.perRow : null, ready: withCoarse ? old.ready : null });
    }
    const pages = Math.max(1, Math.ceil(layout(capacity, dims, listed, coarse).bytes / PAGE));
    return DotKernel.attach({
      memory: simd ? new wasm.Memory({ initial: pages, maximum: pages, shared: true }) : null,
      buffer: simd ? null : new SharedArrayBuffer(rows * dims * 4),
      rows,
      dims,
      listed,
      coarse,
      perRow: withCoarse && simd ? new Float64Array(new SharedArrayBuffer(capacity * 3 * 8)) : null,
      ready: withCoarse && simd ? new Int32Array(new SharedArrayBuffer(4)) : null,
    });
  }

  /** The kernel over the memory another thread shared (share()): the same rows, scanned by this thread. */
  static attach(shared: SharedDotKernel): DotKernel {
    const { memory, rows, dims, listed, perRow, ready } = shared;
    const module = memory ? kernelModule() : null;
    if (!memory || !module)
      return new DotKernel(new Float32Array(shared.buffer ?? new SharedArrayBuffer(rows * dims * 4), 0, rows * dims), rows, dims, null, null, null, shared);
    const exports = new wasm.Instance(module, { env: { memory } }).exports as KernelExports;
    const at = layout(rows, dims, listed, shared.coarse);
    // The memory never grows: these views stay attached.
    const buffer = memory.buffer;
    return new DotKernel(
      new Float32Array(buffer, 0, rows * dims),
      rows,
      dims,
      {
        exports,
        query: new Float32Array(buffer, at.queryAt, dims),
        out: new Float32Array(buffer, at.outAt, rows),
        queryAt: at.queryAt,
        outAt: at.outAt,
      },
      listed
        ? {
            list: new Int32Array(buffer, at.listAt, rows),
            query: new Float64Array(buffer, at.doubleQueryAt, dims),
            out: new Float64Array(buffer, at.doubleOutAt, rows),
            listAt: at.listAt,
            queryAt: at.doubleQueryAt,
            outAt: at.doubleOutAt,
          }
        : null,
      at.withCoarse && perRow && ready
        ? {
            matrix: new Int8Array(buffer, at.coarseAt, rows * dims),
            query: new Int16Array(buffer, at.coarseQueryAt, dims),
            out: new Int32Array(buffer, at.coarseOutAt, rows),
            matrixAt: at.coarseAt,
            queryAt: at.coarseQueryAt,
            outAt: at.coarseOutAt,
            perRow,
            scale: perRow.subarray(0, rows),
            error: perRow.subarray(rows, 2 * rows),
            norm: perRow.subarray(2 * rows, 3 * rows),
            lower: new Float64Array(rows),
            upper: new Float64Array(rows),
            selection: new Float64Array(rows),
            ready,
          }
        : null,
      shared,
    );
  }

  /**
   * What another thread needs to scan this kernel (postMessage it; nothing is copied but a few numbers). From then on
   * only that thread scans it: the scans write their query and products into the shared memory.
   */
  share(): SharedDotKernel {
    return this.shared;
  }

  /**
   * Writes the int8 copy of the rows dotsOfBest() scans first (each row scaled so that its largest float is ±127); call
   * it once `matrix` is filled. Without it (or without room for it) dotsOfBest() is dots(). `from`/`to`: only those
   * rows, so that a thread can quantise in slices between scans; dotsOfBest() uses the copy once the last row is written
   * (until then it is dots(), the same top products).
   */
  quantize(from = 0, to = this.rows): void {
    const c = this.coarse;
    if (!c) return;
    const D = this.dims;
    const m = this.matrix;
    const end = Math.min(to, this.rows);
    for (let r = from; r < end; r++) {
      const o = r * D;
      let max = 0;
      for (let i = 0; i < D; i++) max = Math.max(max, Math.abs(m[o + i]));
      const scale = max / 127;
      let error = 0;
      let norm = 0;
      for (let i = 0; i < D; i++) {
        const q = scale ? Math.max(-127, Math.min(127, Math.round(m[o + i] / scale))) : 0;
        c.matrix[o + i] = q;
        error += (m[o + i] - q * scale) ** 2;
        norm += (q * scale) ** 2;
      }
      c.scale[r] = scale;
      c.error[r] = Math.sqrt(error);
      c.norm[r] = Math.sqrt(norm);
    }
    if (end >= this.rows) c.ready[0] = 1;
  }

  /** Whether quantize() has a copy to write that dotsOfBest() does not use yet. */
  get unquantized(): boolean {
    return Boolean(this.coarse && !this.coarse.ready[0]);
  }

  /**
   * dots(query) for every row that can be among the `k` with the highest products, -Infinity for the others: the
   * same floats, bit for bit, where it matters for the best `k` (ties included). The float32 scan reads the whole
   * matrix (40 MB at 20,000 rows of 512), and reading it is what a scan costs; this one scans the int8 copy (a quarter
   * of the bytes) in exact integer sums, bounds how far each row's float32 product can be from its coarse one (the
   * rounding of the row and of the query, by Cauchy–Schwarz, and a margin for float32 rounding well above its worst
   * case), and computes the float32 products of only the rows whose upper bound reaches the k-th best lower bound.
   * A new array, or `into` (as dots()).
   */
  dotsOfBest(query: Float32Array, k: number, into?: Float32Array): Float32Array {
    const c = this.coarse;
    const D = this.dims;
    if (!this.wasm || !this.listed || !c?.ready[0] || k >= this.rows / 4) return this.dots(query, into);
    let max = 0;
    let length = 0;
    for (let i = 0; i < D; i++) {
      max = Math.max(max, Math.abs(query[i]));
      length += query[i] * query[i];
    }
    length = Math.sqrt(length);
    const scale = max / 32767;
    let error = 0;
    for (let i = 0; i < D; i++) {
      const q = scale ? Math.max(-32767, Math.min(32767, Math.round(query[i] / scale))) : 0;
      c.query[i] = q;
      error += (query[i] - q * scale) ** 2;
    }
    error = Math.sqrt(error);
    const { exports } = this.wasm;
    exports.dots_i8(c.matrixAt, this.rows, c.queryAt, c.outAt, D);
    const { lower, upper, selection, error: rowError, norm, scale: rowScale } = c;
    const sums = c.out;
    const n = this.rows;
    for (let r = 0; r < n; r++) {
      const coarse = sums[r] * rowScale[r] * scale;
      const bound = rowError[r] * length + norm[r] * error + COARSE_MARGIN * (1 + (norm[r] + rowError[r]) * length);
      lower[r] = coarse - bound;
      upper[r] = coarse + bound;
    }
    // At least k rows have a product at or above the k-th best lower bound: a row whose upper bound is below it is
    // below k others, and only the other rows are computed.
    selection.set(lower);
    const threshold = kthLargest(selection, k);
    const l = this.listed;
    const list = l.list;
    let count = 0;
    for (let r = 0; r < n; r++) if (upper[r] >= threshold) list[count++] = r;
    this.wasm.query.set(query.subarray(0, D));
    const out = this.wasm.out;
    out.fill(-Infinity);
    exports.dots_listed(0, l.listAt, count, this.wasm.queryAt, this.wasm.outAt, D * 4);
    return into ? (into.set(out), into) : out.slice();
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

  /**
   * Each row's dot product with `query`, as a new array (the caller may keep it across scans), or written into `into`
   * (`rows` floats): a thread scanning for every query then makes no 80 kB of garbage per scan at 20,000 rows.
   */
  dots(query: Float32Array, into?: Float32Array): Float32Array {
    const D = this.dims;
    if (this.wasm) {
      const { exports, queryAt, outAt } = this.wasm;
      this.wasm.query.set(query.subarray(0, D));
      exports.dots(0, this.rows, queryAt, outAt, D * 4);
      return into ? (into.set(this.wasm.out), into) : this.wasm.out.slice();
    }
    const out = into ?? new Float32Array(this.rows);
    const m = this.matrix;
    for (let r = 0, o = 0; r < this.rows; r++, o += D) {
      let s = 0;
      for (let i = 0; i < D; i++) s += m[o + i] * query[i];
      out[r] = s;
    }
    return out;
  }
}

/**
 * Added to each coarse bound, times (1 + the lengths' product): float32 sums of 512 products of unit vectors are
 * within about 1e-5 of the exact sum, and the bound's own arithmetic in doubles is far closer.
 */
const COARSE_MARGIN = 1e-4;

/** The k-th largest of `xs` (1-based; xs is reordered), by quickselect. */
function kthLargest(xs: Float64Array, k: number): number {
  let lo = 0;
  let hi = xs.length - 1;
  const want = k - 1;
  while (lo < hi) {
    const pivot = xs[(lo + hi) >> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (xs[i] > pivot) i++;
      while (xs[j] < pivot) j--;
      if (i <= j) {
        const t = xs[i];
        xs[i] = xs[j];
        xs[j] = t;
        i++;
        j--;
      }
    }
    if (want <= j) hi = j;
    else if (want >= i) lo = i;
    else return xs[want];
  }
  return xs[want];
}
