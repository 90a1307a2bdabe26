import type { CourseTexts } from './course-texts';

/** Texts sent to the encoder at once (shared out between its threads), then stored: the progress a restart keeps. */
export const ENCODE_BATCH = 64;

/** What a run needs of the vector store (SentenceVectorStore in production). */
export interface VectorSink {
  stored(hashes: string[]): Promise<Set<string>>;
  save(hashes: string[], vectors: Float32Array[]): Promise<number>;
  prune(keep: string[]): Promise<number>;
}

export interface TextEncoder {
  encode(texts: string[]): Promise<Float32Array[]>;
}

export interface EncodeRun {
  encoded: number;
  pruned: number;
  ms: number;
}

/**
 * Encodes every course text that has no stored vector yet, batch by batch, storing each batch as it is done; then
 * removes vectors nothing uses. A text already stored is never encoded again, so a restart (or an unchanged
 * catalogue) costs one read of the catalogue and no encoding.
 */
export async function encodePendingCourses(
  pages: AsyncIterable<CourseTexts[]>,
  store: VectorSink,
  encoder: TextEncoder,
  batch = ENCODE_BATCH,
): Promise<EncodeRun> {
  const started = Date.now();
  const keep: string[] = [];
  const pending = new Map<string, string>();
  for await (const page of pages) {
    const stored = await store.stored(page.flatMap((c) => c.hashes));
    for (const c of page) {
      keep.push(...c.hashes);
      c.hashes.forEach((h, i) => !stored.has(h) && pending.set(h, c.texts[i]));
    }
  }
  let encoded = 0;
  // Shortest first: texts of similar length share a model call (each call pads its texts to its longest), and the
  // short ones, most of the catalogue, are searchable soonest.
  const entries = [...pending].sort((a, b) => a[1].length - b[1].length);
  // The next batch is handed to the encoder before the last one is done and stored, so that a thread that finishes
  // its share of a batch early goes on with the next instead of waiting for the others (and for the write).
  let previous: Promise<void> = Promise.resolve();
  for (let i = 0; i < entries.length; i += batch) {
    const part = entries.slice(i, i + batch);
    const vectors = encoder.encode(part.map(([, text]) => text));
    const stored = Promise.all([vectors, previous])
      .then(([v]) =>
        store.save(
          part.map(([h]) => h),
          v,
        ),
      )
      .then(() => void (encoded += part.length));
    // Its failure is reported by the await of the next round (or the last one), never left unhandled.
    stored.catch(() => undefined);
    await previous;
    previous = stored;
  }
  await previous;
  const pruned = await store.prune(keep);
  return { encoded, pruned, ms: Date.now() - started };
}
