// One side of `npm run bench:search-ab` (bench/search-ab.ts): boots the BUILT API of SIDE_ROOT (its dist/) in this
// process with both semantic engines on, on the database of DATABASE_URL, and answers the driver over IPC. Plain
// JavaScript, so that one copy of it runs any checkout's build (the driver starts it once per side).
'use strict';
const { join } = require('node:path');
const { performance, PerformanceObserver, constants } = require('node:perf_hooks');

// Full (mark-compact) collections of the main thread since the process started: with { memory } samples, says whether
// a fall of the heap was V8 collecting on its own.
let majorGcs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (e.detail && e.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majorGcs++;
}).observe({ entryTypes: ['gc'] });

const root = process.env.SIDE_ROOT;
const need = (id) => require(require.resolve(id, { paths: [root] }));
need('reflect-metadata');
const dist = (p) => require(join(root, 'dist', 'src', p));

async function main() {
  const { loadConfig } = dist('config/config');
  const { createApp } = dist('app.factory');
  const { PartnersService } = dist('partners/partners.service');
  const { SearchService } = dist('search/search.service');
  const started = performance.now();
  const app = await createApp(loadConfig(), { worker: false });
  await app.listen(0, '127.0.0.1');
  const search = app.get(SearchService);
  await Promise.all([search.embedded?.ready, search.encoder?.load(), search.encoder?.refresh()]);
  const ready = performance.now() - started;
  const partner = await app
    .get(PartnersService)
    .create({ name: 'Bench', email: `bench-ab-${process.pid}-${Date.now().toString(36)}@example.com`, plan: 'enterprise', mode: 'test' });
  process.on('message', (msg) => {
    if (msg.clear) {
      // Every query is encoded again: the figures include the sentence encoder's cost, not its cache's.
      search.encoder?.clearCache();
      process.send({ cleared: true });
    } else if (msg.memory) {
      process.send({ memory: memory(search, msg.memory.gc) });
    } else if (msg.stop) {
      void app.close().then(() => process.exit(0));
    }
  });
  process.send({
    port: app.getHttpServer().address().port,
    key: partner.api_key.key,
    readyMs: ready,
    rss: process.memoryUsage().rss,
    encoderCourses: search.encoder?.size ?? 0,
    embeddedCourses: search.embedded?.size ?? 0,
  });
}

let lastTitles;
let titleIndexes = 0;
let lastMatrix;
let matrices = 0;
/**
 * The driver's { memory } samples: the main thread's process.memoryUsage() (after a full collection when asked, which
 * needs --expose-gc), with how many sentence matrices and fuzzy title indexes the samples have seen (one each if
 * nothing reloaded) and the major collections so far.
 */
function memory(search, gc) {
  if (gc && global.gc) global.gc();
  const titles = search.facts && search.facts.titles;
  if (titles && titles !== lastTitles) titleIndexes++;
  lastTitles = titles;
  const encoder = search.encoder;
  const matrix = encoder && encoder.index && encoder.index.matrix;
  if (matrix && matrix !== lastMatrix) matrices++;
  lastMatrix = matrix;
  return { main: process.memoryUsage(), matrices, titleIndexes, majorGcs };
}

main().catch((e) => {
  process.stderr.write(`search side failed: ${e && e.stack ? e.stack : String(e)}\n`);
  process.exit(1);
});
