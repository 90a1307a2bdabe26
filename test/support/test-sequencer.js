/**
 * The order jest hands files to its two workers: the longest first, so that the run does not end with one worker
 * still on a minute-long file while the other sits idle.
 *
 * Jest does this itself from the durations it caches after a run, but a clean clone (CI) has no cache, and jest then
 * orders by file size: the browser files are short texts that run for a minute or more, so they came last and the
 * run ended on them. Without a cached duration, a file's duration is taken from test/support/durations.json (seconds
 * in a full run on a 2-core machine; `node scripts/test-durations.js <jest --json output>` refreshes it). Files in
 * neither come after those, largest first, as jest would order them. Files that failed last time still come first.
 */
'use strict';
const { relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;
const durations = require('./durations.json');

class LongestFirst extends Sequencer {
  sort(tests) {
    const size = (test) => test.context.hasteFS.getSize(test.path) ?? 0;
    const seconds = (test) => {
      // As jest's own sort does: its choice of running in band reads test.duration.
      const cached = (test.duration = this.time(test));
      if (cached != null) return cached / 1000;
      return durations[relative(test.context.config.rootDir, test.path).split('\\').join('/')];
    };
    const keyed = tests.map((test) => ({ test, failed: this.hasFailed(test), seconds: seconds(test), size: size(test) }));
    keyed.sort((a, b) => {
      if (a.failed !== b.failed) return a.failed ? -1 : 1;
      if ((a.seconds != null) !== (b.seconds != null)) return a.seconds != null ? -1 : 1;
      if (a.seconds != null && a.seconds !== b.seconds) return b.seconds - a.seconds;
      return b.size - a.size;
    });
    return keyed.map((k) => k.test);
  }
}

module.exports = LongestFirst;
