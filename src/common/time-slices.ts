import { performance } from 'node:perf_hooks';

/**
 * Synchronous work between two yields to the event loop while an in-memory index is rebuilt (see TimeSlices). Well
 * under the ~20 ms a request should wait at most: a young-generation collection landing in a slice (7–20 ms during a
 * reload with the service's 32 MB semi-space) adds to it.
 */
export const SLICE_MS = 5;

/**
 * Cuts a long synchronous build into slices of about `budgetMs`: the build calls pause() between chunks of its work
 * (each well under the budget), which yields to the event loop (setImmediate) once the slice is spent. A reload of a
 * 20,000-course catalogue would otherwise hold every request of the process for its whole build (70–150 ms), and the
 * slices are cut by time, not by rows, so a slower or busier machine yields as often per millisecond.
 */
export class TimeSlices {
  private started = performance.now();

  constructor(private readonly budgetMs = SLICE_MS) {}

  /**
   * Yields when the slice is spent; the next slice starts when the event loop comes back. An await on I/O in between
   * does not restart the clock: the first pause after a statement's result (parsed in the turn that resolves it)
   * yields at once.
   */
  async pause(): Promise<void> {
    if (performance.now() - this.started < this.budgetMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.started = performance.now();
  }
}
