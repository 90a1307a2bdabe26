import { performance } from 'node:perf_hooks';

/**
 * Runs `work` with a 1-ms interval probe beside it: `block` is the longest gap between two of its ticks (the longest
 * the event loop was held: a request arriving then waits that long), `total` the work's own time, `ticks` how many
 * times the probe got the loop. The probe settles for 20 ms first, and watches 5 ms after the end (a block at the very
 * end is seen by the next tick). On a loaded machine a gap includes the time the thread was not scheduled.
 */
export async function probed<T>(work: () => Promise<T> | T): Promise<{ result: T; block: number; total: number; ticks: number }> {
  let last = performance.now();
  let block = 0;
  let ticks = 0;
  const probe = setInterval(() => {
    const now = performance.now();
    block = Math.max(block, now - last);
    last = now;
    ticks++;
  }, 1);
  await new Promise((r) => setTimeout(r, 20));
  const started = performance.now();
  block = 0;
  ticks = 0;
  last = started;
  const result = await work();
  const total = performance.now() - started;
  await new Promise((r) => setTimeout(r, 5));
  clearInterval(probe);
  return { result, block, total, ticks };
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
