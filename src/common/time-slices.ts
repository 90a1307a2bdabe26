import { performance } from 'node:perf_hooks';

/** Synchronous work between two yields to the event loop while an in-memory index is rebuilt (see TimeSlices). */
export const SLICE_MS = 8;

/**
 * Cuts a long synchronous build into slices of about `budgetMs`: the build calls pause() between chunks of its work
 * (each well under the budget), which yields to the event loop (setImmediate) once the slice is spent. A reload of a
 * 20,000-course catalogue would otherwise hold every request of the process for its whole build (70–150 ms), and the
 * slices are cut by time, not by rows, so a slower or busier machine yields as often per millisecond.
 */
export class TimeSlices {
  private started = performance.now();

  constructor(private readonly budgetMs = SLICE_MS) {}

  /** Yields when the slice is spent; the next slice starts when the event loop comes back. */
  async pause(): Promise<void> {
    if (performance.now() - this.started < this.budgetMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.started = performance.now();
  }
}
