import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { loadSentenceModel, SentenceModel } from './sentence-model';
import type { DotKernel } from '../semantic/dot-kernel';
import { attachMatrix, EMPTY_MATRIX, packHits, ScanOptions, scanMatrix, SharedSentenceMatrix } from './sentence-scan';

/** What the thread is asked: texts to encode (then, with `scan`, the first one scanned), or a vector to scan. */
interface Request {
  id: number;
  texts?: string[];
  vector?: Float32Array;
  scan?: ScanOptions;
}

// Rows quantised between two looks at the message queue: ~15 ms.
const QUANTIZE_SLICE = 1000;

/**
 * A worker thread of the encoder pool: lowers its own scheduling priority when asked (on Linux a thread's nice value
 * is its own, so the process's other threads keep theirs), loads the model on its first texts, then answers { id,
 * texts } with { id, vectors } (the float32 buffers transferred, not copied) or { id, error }. The query encoder's
 * thread also scans the course vectors, which the event loop builds in memory it shares ({ matrix }, posted again at
 * each reload, answered once the thread has moved to it): { id, texts, scan } adds the first text's hits, { id, vector, scan } scans a vector encoded before, and
 * either answers the hits packed, with the generation of the matrix they come from.
 */
const port = parentPort;
if (port) {
  const { nice } = (workerData ?? {}) as { nice?: number };
  if (nice) {
    try {
      setPriority(0, nice);
    } catch {
      // A platform that refuses only leaves the thread at the process's priority.
    }
  }
  let model: Promise<SentenceModel> | undefined;
  let matrix = EMPTY_MATRIX;
  let generation = 0;
  // The event loop leaves the int8 copy of a new matrix to this thread (120–300 ms at 20,000 rows): written a slice at a
  // time, with the scans asked meanwhile in between (they scan the float32 rows whole until the copy is complete, with
  // the same hits). A matrix replaced meanwhile is left as it is: it is never scanned again.
  const quantizeInSlices = (rows: DotKernel, from: number): void => {
    if (matrix.rows !== rows) return;
    const to = from + QUANTIZE_SLICE;
    rows.quantize(from, to);
    if (to < rows.rows) setImmediate(() => quantizeInSlices(rows, to));
  };
  port.on('message', (msg: Request | { id?: number; matrix: SharedSentenceMatrix }) => {
    if ('matrix' in msg) {
      // From here on the previous matrix is never scanned again (a scan runs whole within one message): the answer
      // lets the event loop write its next matrix into that memory.
      matrix = attachMatrix(msg.matrix);
      generation = msg.matrix.generation;
      if (matrix.rows.unquantized) quantizeInSlices(matrix.rows, 0);
      if (msg.id !== undefined) port.postMessage({ id: msg.id });
      return;
    }
    void (async () => {
      try {
        let vectors: Float32Array[] = [];
        if (msg.texts) vectors = await (await (model ??= loadSentenceModel())).encode(msg.texts);
        const query = msg.vector ?? vectors[0];
        const hits = msg.scan && query ? packHits(scanMatrix(matrix, query, msg.scan)) : undefined;
        const transfer: ArrayBuffer[] = vectors.map((v) => v.buffer as ArrayBuffer);
        if (hits) transfer.push(hits.ids.buffer as ArrayBuffer, hits.scores.buffer as ArrayBuffer, hits.cosines.buffer as ArrayBuffer);
        port.postMessage({ id: msg.id, vectors, ...(hits ? { hits, generation } : {}) }, transfer);
      } catch (e) {
        port.postMessage({ id: msg.id, error: (e as Error).message });
      }
    })();
  });
}
