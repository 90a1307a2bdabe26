'use strict';
/**
 * Preloaded (`node -r`) into the processes a benchmark measures, to say what happened inside them during a run: the
 * event loop's delay (how long a ready callback waited: what stretches the latency tail) and the garbage collector's
 * pauses by kind. On SIGWINCH (a signal Node and Nest otherwise leave alone) it writes what it saw since the last
 * signal to `<BENCH_PROBE_DIR>/probe-<pid>.json` and starts again; bench/lib.js's `readProbe` sends the signal and
 * reads the file.
 *
 * With BENCH_PROBE_REQUESTS=true it also times every HTTP request inside the process, from the server's `request`
 * event (headers parsed) to the response's `finish` (its last write handed to the socket), and counts the requests
 * already in the process when each arrived: a request waiting inside the process (for Redis, for a promise chain)
 * shows there, one waiting for the loop to read its socket does not. Off by default: a listener per request is a cost
 * the other figures should not carry.
 */
const { writeFileSync, renameSync } = require('node:fs');
const { join } = require('node:path');
const { constants, monitorEventLoopDelay, performance, PerformanceObserver } = require('node:perf_hooks');

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
  let requests = { ms: [], inFlightSum: 0 };
  if (process.env.BENCH_PROBE_REQUESTS === 'true') {
    const http = require('node:http');
    const emit = http.Server.prototype.emit;
    let inFlight = 0;
    http.Server.prototype.emit = function (event, req, res) {
      if (event === 'request') {
        const started = performance.now();
        const counted = requests;
        counted.inFlightSum += inFlight++;
        res.once('finish', () => counted.ms.push(performance.now() - started));
        res.once('close', () => inFlight--);
      }
      return emit.apply(this, arguments);
    };
  }
  const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
  process.on('SIGWINCH', () => {
    const file = join(dir, `probe-${process.pid}.json`);
    const report = {
      loopDelayMs: { p50: delay.percentile(50) / 1e6, p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 },
      gc,
      heapUsedMb: process.memoryUsage().heapUsed / 1e6,
    };
    if (requests.ms.length) {
      const sorted = requests.ms.sort((a, b) => a - b);
      report.requests = {
        count: sorted.length,
        p50Ms: percentile(sorted, 50),
        p99Ms: percentile(sorted, 99),
        maxMs: sorted[sorted.length - 1],
        meanInFlight: requests.inFlightSum / sorted.length,
      };
    }
    writeFileSync(`${file}.tmp`, JSON.stringify(report));
    renameSync(`${file}.tmp`, file);
    delay.reset();
    gc = {};
    requests = { ms: [], inFlightSum: 0 };
  });
}
