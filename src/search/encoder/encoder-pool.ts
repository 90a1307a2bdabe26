import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { projectRoot } from '../../common/project-root';

interface Pending {
  resolve(reply: Reply): void;
  reject(e: Error): void;
}

/** A thread's answer: the texts' vectors, and whatever else the request asked for (encoder-thread.ts). */
interface Reply {
  id: number;
  vectors?: Float32Array[];
  error?: string;
}

interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
}

/** Threads an encoding run uses by default: every core (the machine this serves on has two). */
export function defaultEncoderThreads(): number {
  return Math.max(1, availableParallelism());
}

/**
 * Texts one thread encodes per model call. The model pads every text of a call to the longest one, and its cost per
 * text grows with the call (measured per text of the demo catalogue: 32 at a time cost 1.4 × one at a time); calls of
 * a few texts of similar length (the caller sorts them) cost least, and a thread is never busy for long on one call.
 */
export const ENCODE_CHUNK = 8;

/** The nice value of background encoding threads: searches on the event loop (nice 0) come first on a busy core. */
export const BACKGROUND_NICE = 10;

export interface EncoderPoolOptions {
  /** Nice value of the threads (Linux: per thread); BACKGROUND_NICE unless told. */
  nice?: number;
  /** Texts per model call; ENCODE_CHUNK unless told. */
  chunk?: number;
  /** Threads that keep the process alive only while they have work (a process that is done exits without close()). */
  unref?: boolean;
  /** A message each thread gets first when it starts (a thread started again after a crash gets it too). */
  init?: () => object | undefined;
}

/**
 * Worker threads that each hold the sentence model, so texts are encoded on every core while the event loop keeps
 * serving. A call's texts are cut into chunks that each thread takes as soon as it is free, so a thread given long
 * texts does not hold the others up. Threads start on first use and end with close(): the 150 MB each model takes is
 * held only while they live.
 */
export class EncoderPool {
  private workers: Slot[] = [];
  private nextId = 0;
  private readonly nice: number;
  private readonly chunk: number;
  private readonly unref: boolean;
  private readonly init?: () => object | undefined;

  constructor(
    readonly threads: number,
    options: EncoderPoolOptions = {},
  ) {
    this.nice = options.nice ?? BACKGROUND_NICE;
    this.chunk = options.chunk ?? ENCODE_CHUNK;
    this.unref = options.unref ?? false;
    this.init = options.init;
  }

  /** Vectors of `texts`, in order. */
  async encode(texts: string[]): Promise<Float32Array[]> {
    if (!texts.length) return [];
    this.start();
    const out = new Array<Float32Array>(texts.length);
    let next = 0;
    const drain = async (slot: Slot) => {
      while (next < texts.length) {
        const from = next;
        next = Math.min(texts.length, from + this.chunk);
        const { vectors = [] } = await this.send(slot, { texts: texts.slice(from, next) });
        vectors.forEach((v, i) => (out[from + i] = v));
      }
    };
    await Promise.all(this.workers.map(drain));
    return out;
  }

  /** Sends one request to the first thread and resolves with its whole reply (encoder-thread.ts says what it takes). */
  async request<T extends object>(message: object): Promise<T & { vectors?: Float32Array[] }> {
    this.start();
    return (await this.send(this.workers[0], message)) as unknown as T & { vectors?: Float32Array[] };
  }

  /** Whether a thread runs (started and not ended): one started later gets init()'s message first. */
  get running(): boolean {
    return this.workers.length > 0;
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
      const worker = new Worker(entry, { execArgv, workerData: { nice: this.nice } });
      const slot: Slot = { worker, pending: new Map<number, Pending>() };
      worker.on('message', (msg: Reply) => {
        const p = slot.pending.get(msg.id);
        if (!p) return;
        slot.pending.delete(msg.id);
        if (this.unref && !slot.pending.size) worker.unref();
        if (msg.error !== undefined) p.reject(new Error(`sentence encoder thread: ${msg.error}`));
        else p.resolve(msg);
      });
      const failAll = (e: Error) => {
        for (const p of slot.pending.values()) p.reject(e);
        slot.pending.clear();
        this.workers = this.workers.filter((w) => w !== slot);
      };
      worker.on('error', failAll);
      worker.on('exit', (code) => failAll(new Error(`sentence encoder thread exited (${code})`)));
      // After the listeners (adding a 'message' listener refs the worker again); send() refs it while it works.
      if (this.unref) worker.unref();
      const first = this.init?.();
      if (first) worker.postMessage(first);
      this.workers.push(slot);
    }
  }

  private send(slot: Slot, message: object): Promise<Reply> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      if (this.unref) slot.worker.ref();
      slot.worker.postMessage({ ...message, id });
    });
  }
}
