'use strict';
/**
 * Preloaded (`node -r`) into the processes a benchmark measures, to say what happened inside them during a run: the
 * event loop's delay (how long a ready callback waited: what stretches the latency tail) and the garbage collector's
 * pauses by kind. On SIGWINCH (a signal Node and Nest otherwise leave alone) it writes what it saw since the last
 * signal to `<BENCH_PROBE_DIR>/probe-<pid>.json` and starts again; bench/lib.js's `readProbe` sends the signal and
 * reads the file.
 */
const { writeFileSync, renameSync } = require('node:fs');
const { join } = require('node:path');
const { constants, monitorEventLoopDelay, PerformanceObserver } = require('node:perf_hooks');

const dir = process.env.BENCH_PROBE_DIR;
if (dir) {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const KINDS = {
    [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
    [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak',
  };
  let gc = {};
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = KINDS[e.detail?.kind] ?? 'other';
      const g = (gc[kind] ??= { count: 0, ms: 0, maxMs: 0 });
      g.count++;
      g.ms += e.duration;
      g.maxMs = Math.max(g.maxMs, e.duration);
    }
  }).observe({ entryTypes: ['gc'] });
  process.on('SIGWINCH', () => {
    const file = join(dir, `probe-${process.pid}.json`);
    const report = {
      loopDelayMs: { p50: delay.percentile(50) / 1e6, p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 },
      gc,
      heapUsedMb: process.memoryUsage().heapUsed / 1e6,
    };
    writeFileSync(`${file}.tmp`, JSON.stringify(report));
    renameSync(`${file}.tmp`, file);
    delay.reset();
    gc = {};
  });
}
