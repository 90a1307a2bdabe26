import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { projectRoot } from '../../common/project-root';

interface Pending {
  resolve(vectors: Float32Array[]): void;
  reject(e: Error): void;
}

/** Threads an encoding run uses by default: every core (the machine this serves on has two). */
export function defaultEncoderThreads(): number {
  return Math.max(1, availableParallelism());
}

/**
 * Worker threads that each hold the sentence model, so a batch of course texts is encoded on every core while the
 * event loop keeps serving. Threads start on first use and end with close(): the 150 MB each model takes is held only
 * while courses are being encoded.
 */
export class EncoderPool {
  private workers: Array<{ worker: Worker; pending: Map<number, Pending> }> = [];
  private nextId = 0;

  constructor(readonly threads: number) {}

  /** Vectors of `texts`, in order; the texts are split evenly between the threads. */
  async encode(texts: string[]): Promise<Float32Array[]> {
    if (!texts.length) return [];
    this.start();
    const share = Math.ceil(texts.length / this.workers.length);
    const parts = await Promise.all(
      this.workers.map((w, i) => {
        const slice = texts.slice(i * share, (i + 1) * share);
        return slice.length ? this.send(w, slice) : Promise.resolve([]);
      }),
    );
    return parts.flat();
  }

  async close(): Promise<void> {
    const workers = this.workers;
    this.workers = [];
    await Promise.all(workers.map((w) => w.worker.terminate()));
  }

  private start(): void {
    if (this.workers.length) return;
    // Under ts-node-like runners (tests, eval) the thread's entry is TypeScript: it gets the same compiler hook.
    const typescript = __filename.endsWith('.ts');
    const entry = join(__dirname, `encoder-thread.${typescript ? 'ts' : 'js'}`);
    const execArgv = typescript ? ['-r', join(projectRoot(), 'scripts', 'swc-register.js')] : [];
    for (let i = 0; i < this.threads; i++) {
      const worker = new Worker(entry, { execArgv });
      const slot = { worker, pending: new Map<number, Pending>() };
      worker.on('message', (msg: { id: number; vectors?: Float32Array[]; error?: string }) => {
        const p = slot.pending.get(msg.id);
        if (!p) return;
        slot.pending.delete(msg.id);
        if (msg.error !== undefined) p.reject(new Error(`sentence encoder thread: ${msg.error}`));
        else p.resolve(msg.vectors ?? []);
      });
      const failAll = (e: Error) => {
        for (const p of slot.pending.values()) p.reject(e);
        slot.pending.clear();
        this.workers = this.workers.filter((w) => w !== slot);
      };
      worker.on('error', failAll);
      worker.on('exit', (code) => failAll(new Error(`sentence encoder thread exited (${code})`)));
      this.workers.push(slot);
    }
  }

  private send(slot: { worker: Worker; pending: Map<number, Pending> }, texts: string[]): Promise<Float32Array[]> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ id, texts });
    });
  }
}
