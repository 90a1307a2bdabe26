import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { loadSentenceModel } from './sentence-model';

/**
 * A worker thread of the encoder pool: lowers its own scheduling priority when asked (on Linux a thread's nice value
 * is its own, so the process's other threads keep theirs), loads the model once, then answers { id, texts } with
 * { id, vectors } (the float32 buffers transferred, not copied) or { id, error }.
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
  const model = loadSentenceModel();
  port.on('message', (msg: { id: number; texts: string[] }) => {
    void (async () => {
      try {
        const vectors = await (await model).encode(msg.texts);
        port.postMessage(
          { id: msg.id, vectors },
          vectors.map((v) => v.buffer as ArrayBuffer),
        );
      } catch (e) {
        port.postMessage({ id: msg.id, error: (e as Error).message });
      }
    })();
  });
}
