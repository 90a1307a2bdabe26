import { Logger } from '@nestjs/common';
import { errorMessage } from './error-message';

/** What a pass may answer: `'again'` when it stopped at a batch limit and more work is waiting, so the next pass starts at once. */
export type PassOutcome = void | 'again';

export interface PeriodicTaskOptions {
  /** Names the task in its log lines. */
  name: string;
  /** The wait between the end of one pass and the start of the next. */
  intervalMs: number;
  /** The wait before the first pass (default: one interval). */
  firstDelayMs?: number;
  /** Each wait is drawn within ± this fraction of it (default 0.1), so instances started together do not run in step. */
  jitter?: number;
  /** Lets the process exit while this timer is the only thing pending (loops whose stop is not awaited at exit). */
  unref?: boolean;
}

const DEFAULT_JITTER = 0.1;

/**
 * An in-process timer loop (sweeps, relays, flushes): it keeps running whatever Redis holds or loses, since it needs
 * nothing but this process. The next pass is scheduled when the previous one ends, so a slow pass is never run twice
 * at once, and `runNow()` joins the pass in progress rather than starting a second one. A failed pass is logged and
 * tried again after the usual wait. `stop()` cancels the timer and waits for the running pass, so nothing a pass
 * needs (the database, Redis) closes under it.
 */
export class PeriodicTask {
  private readonly logger: Logger;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private started = false;
  private stopped = false;

  constructor(
    private readonly options: PeriodicTaskOptions,
    private readonly pass: () => Promise<PassOutcome>,
  ) {
    this.logger = new Logger(options.name);
  }

  /** True once `stop()` was called: a pass that loops over pages checks it between two. */
  get stopping(): boolean {
    return this.stopped;
  }

  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.schedule(this.options.firstDelayMs ?? this.options.intervalMs);
  }

  /** Runs a pass now, or joins the one in progress; the timer carries on from its end. */
  runNow(): Promise<void> {
    if (this.running) return this.running;
    clearTimeout(this.timer);
    return this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** The wait before a pass, drawn uniformly within the jitter around `delayMs`. */
  delayWithJitter(delayMs: number): number {
    const jitter = this.options.jitter ?? DEFAULT_JITTER;
    return Math.max(0, Math.round(delayMs * (1 - jitter + 2 * jitter * Math.random())));
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.run(), this.delayWithJitter(delayMs));
    if (this.options.unref) this.timer.unref();
  }

  private run(): Promise<void> {
    const pass = (async () => {
      let outcome: PassOutcome = undefined;
      try {
        outcome = await this.pass();
      } catch (err) {
        this.logger.warn({ err: errorMessage(err) }, `${this.options.name} failed; retrying`);
      }
      this.running = undefined;
      if (this.started) this.schedule(outcome === 'again' ? 0 : this.options.intervalMs);
    })();
    this.running = pass;
    return pass;
  }
}
