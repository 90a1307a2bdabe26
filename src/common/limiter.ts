/**
 * Runs at most `limit` tasks at once; the others wait their turn in call order. Search's statements (BoundedQueryable)
 * and the webhook worker's shared first attempts are bounded with it.
 */
export class Limiter {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiter, so `running` never drops below the work in hand.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
