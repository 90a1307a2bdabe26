interface Waiting<I, O> {
  input: I;
  resolve: (output: O) => void;
  reject: (error: unknown) => void;
}

/**
 * Groups concurrent calls into one batch call, the way a database groups commits: calls made in the same turn of
 * the event loop, or while `maxInFlight` batches are already running, go out together in the next batch. Idle, a
 * call waits one `setImmediate`; under load, batches grow by themselves instead of round trips multiplying.
 * `run` must answer one output per input, in order; if it throws, every call of that batch rejects with the error.
 */
export class Batcher<I, O> {
  private waiting: Array<Waiting<I, O>> = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly run: (inputs: I[]) => Promise<O[]>,
    private readonly options: { maxBatch: number; maxInFlight: number } = { maxBatch: 200, maxInFlight: 2 },
  ) {}

  call(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || !this.waiting.length || this.inFlight >= this.options.maxInFlight) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (!this.waiting.length || this.inFlight >= this.options.maxInFlight) return;
    const batch = this.waiting.splice(0, this.options.maxBatch);
    this.inFlight++;
    // The async wrapper calls `run` at once and turns a synchronous throw into a rejection of this batch.
    const outputs = (async () => this.run(batch.map((w) => w.input)))();
    outputs
      .then(
        (out) => batch.forEach((w, i) => w.resolve(out[i])),
        (e) => batch.forEach((w) => w.reject(e)),
      )
      .finally(() => {
        this.inFlight--;
        this.schedule();
      });
    this.schedule(); // more than maxBatch waiting, and room for another batch
  }
}
