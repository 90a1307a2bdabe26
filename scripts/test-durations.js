#!/usr/bin/env node
// Refreshes test/support/durations.json (the order of a run without jest's cache: test/support/test-sequencer.js)
// from a full run's report: `npx jest --json --outputFile=run.json && node scripts/test-durations.js run.json`.
'use strict';
const { readFileSync, writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const report = process.argv[2];
if (!report) {
  console.error('usage: node scripts/test-durations.js <jest --json output>');
  process.exit(2);
}
const root = join(__dirname, '..');
const { testResults } = JSON.parse(readFileSync(report, 'utf8'));
const seconds = testResults
  .map((r) => [relative(root, r.name).split('\\').join('/'), Math.round((r.endTime - r.startTime) / 100) / 10])
  .sort((a, b) => b[1] - a[1]);
writeFileSync(join(root, 'test', 'support', 'durations.json'), JSON.stringify(Object.fromEntries(seconds), null, 2) + '\n');
console.log(`${seconds.length} files, longest ${seconds[0]?.join(': ')} s`);
