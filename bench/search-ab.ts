/**
 * Search latency, two builds side by side: `BENCH_BASE_ROOT=<checkout> npm run bench:search-ab` (options: `--rounds N`,
 * default 3; `--real` stays on the real catalogue instead of growing it to 20,000 courses; `--concurrency N`, default 1:
 * N judged queries sent at once, to one side then the other, as requests that overlap on one process; `--memory N`:
 * each side's main-thread memory every N queries, and at the end after a full collection).
 *
 * Loads the real catalogue into a scratch database (as bench/search.ts does, random sentence vectors), grows it to
 * 20,000 courses, then starts two processes, each the built API (dist/) of one checkout with both semantic engines on:
 * BENCH_BASE_ROOT (the base) and BENCH_SERVICE_ROOT (this checkout unless told). Every judged query goes to one then the
 * other, the order alternating query by query, each with the sentence encoder's cache cleared first, a warm-up round
 * then N rounds. Prints, per side, p50 / p95 / p99 of the HTTP round trip, the ratios of each round's, each process's
 * CPU per query (all its threads, and its main thread alone: the event loop) from /proc, the load average of each
 * round, the time from creating the app to both engines' first index, the RSS, and how many answers differ between
 * the two (results, scores, totals, interpretation): a latency change must not move any.
 */
import { ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createScratchCatalogue } from '../tools/search-eval/scratch-catalogue';
import { growCatalogue, judgedQueries, seedSentenceVectors } from './search-catalogue';

const arg = (name: string) => process.argv.indexOf(name);
const rounds = Number(process.argv[arg('--rounds') + 1]) || 3;
const real = arg('--real') >= 0;
const concurrency = arg('--concurrency') >= 0 ? Math.max(1, Number(process.argv[arg('--concurrency') + 1]) || 1) : 1;
// Every N queries of each side, its main thread's memory (bench/search-side.js), and at the end again after a full
// collection: is a growth garbage V8 has not collected yet, or retained?
const memoryEvery = arg('--memory') >= 0 ? Math.max(1, Number(process.argv[arg('--memory') + 1]) || 100) : 0;
const baseRoot = process.env.BENCH_BASE_ROOT;
const serviceRoot = resolve(process.env.BENCH_SERVICE_ROOT ?? join(__dirname, '..'));
const TICK_MS = 10; // USER_HZ: /proc's clock ticks are 1/100 s on Linux

const judged = judgedQueries();
const queries = judged.map((q) => q.query);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const median = (xs: number[]) => pct(xs, 50);
const f1 = (x: number) => x.toFixed(1);

/** CPU ticks of a process (all threads) and of its main thread. */
function cpuTicks(pid: number): { all: number; main: number } {
  const ticks = (stat: string) => {
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]);
  };
  return { all: ticks(readFileSync(`/proc/${pid}/stat`, 'utf8')), main: ticks(readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8')) };
}
const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

interface Side {
  name: string;
  root: string;
  child: ChildProcess;
  base: string;
  key: string;
  readyMs: number;
  rssReady: number;
  http: number[][];
  cpu: Array<{ all: number; main: number }>;
  answers: string[];
  waiting?: (msg: Record<string, unknown>) => void;
}

function start(name: string, root: string, databaseUrl: string): Promise<Side> {
  const child = fork(join(__dirname, 'search-side.js'), [], {
    env: {
      ...process.env,
      SIDE_ROOT: root,
      DATABASE_URL: databaseUrl,
      REDIS_PREFIX: `pa-bench-ab-${name}-${Date.now().toString(36)}`,
      LOG_LEVEL: 'silent',
      RUN_WORKER: 'false',
      AUTO_MIGRATE: 'false',
      LOAD_DEMO_CATALOGUE: 'false',
      SEARCH_EMBEDDINGS_URL: '',
      SEARCH_EMBEDDED_ENGINE: 'true',
      SEARCH_SENTENCE_ENCODER: 'true',
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    execArgv: memoryEvery ? ['--expose-gc'] : [],
  });
  return new Promise((resolveSide, reject) => {
    child.once('exit', (code) => reject(new Error(`${name} side exited (${code}) before it was ready`)));
    child.once('message', (msg: { port: number; key: string; readyMs: number; rss: number }) => {
      const side: Side = {
        name,
        root,
        child,
        base: `http://127.0.0.1:${msg.port}`,
        key: msg.key,
        readyMs: msg.readyMs,
        rssReady: msg.rss,
        http: [],
        cpu: [],
        answers: [],
      };
      child.on('message', (m: Record<string, unknown>) => side.waiting?.(m));
      resolveSide(side);
    });
  });
}

function ask(side: Side, msg: Record<string, unknown>): Promise<Record<string, unknown>> {
  return new Promise((done) => {
    side.waiting = (m) => {
      side.waiting = undefined;
      done(m);
    };
    side.child.send(msg);
  });
}

async function searchOnce(side: Side, query: string, clear = true): Promise<{ ms: number; answer: string }> {
  if (clear) await ask(side, { clear: true });
  const t = performance.now();
  const res = await fetch(`${side.base}/api/search`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-Key': side.key },
    body: JSON.stringify({ query, limit: 10 }),
  });
  const text = await res.text();
  const ms = performance.now() - t;
  if (res.status !== 200) return { ms, answer: `${res.status}` };
  const { data } = JSON.parse(text) as { data: { results: Array<{ id: number; score: number }> } & Record<string, unknown> };
  const answer = JSON.stringify({ ...data, results: data.results.map((r) => [r.id, r.score]) });
  return { ms, answer };
}

interface MemoryFigures {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
}

async function sampleMemory(side: Side, label: string, gc = false): Promise<void> {
  const m = (await ask(side, { memory: { gc } })).memory as {
    main: MemoryFigures;
    matrices: number;
    titleIndexes: number;
    majorGcs: number;
  };
  const mb = (x: number) => String(Math.round(x / 1e6));
  const figures = (f: MemoryFigures) => `heap ${mb(f.heapUsed)}/${mb(f.heapTotal)} ext ${mb(f.external)} ab ${mb(f.arrayBuffers)}`;
  process.stdout.write(
    `memory ${side.name} ${label}: rss ${mb(m.main.rss)} (proc ${mb(rssOf(side.child.pid!))}) main ${figures(m.main)}` +
      ` | matrices ${m.matrices} title indexes ${m.titleIndexes} major GCs ${m.majorGcs}\n`,
  );
}

async function main(): Promise<void> {
  if (!baseRoot) throw new Error('BENCH_BASE_ROOT=<a built checkout> is required');
  const scratch = await createScratchCatalogue('search_ab');
  const sides: Side[] = [];
  try {
    await seedSentenceVectors(scratch.db);
    if (!real) {
      await growCatalogue(scratch.db);
      await seedSentenceVectors(scratch.db);
    }
    const [{ n }] = await scratch.db.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM courses WHERE published`);
    // One at a time: each side's start-up (index builds) is timed without the other's.
    sides.push(await start('base', resolve(baseRoot), scratch.url));
    sides.push(await start('this', serviceRoot, scratch.url));
    const loads: string[] = [];
    if (memoryEvery) for (const s of sides) await sampleMemory(s, 'ready');
    for (let r = 0; r <= rounds; r++) {
      const before = sides.map((s) => cpuTicks(s.child.pid!));
      const times = sides.map(() => [] as number[]);
      const loadStart = loadavg()[0];
      for (let q = 0; q < queries.length; q += concurrency) {
        const order = (q / concurrency + r) % 2 ? [1, 0] : [0, 1];
        const batch = queries.slice(q, q + concurrency);
        for (const i of order) {
          // A batch's queries are encoded again too: the cache is cleared once before them.
          if (concurrency > 1) await ask(sides[i], { clear: true });
          const results = await Promise.all(batch.map((query) => searchOnce(sides[i], query, concurrency === 1)));
          for (const { ms, answer } of results) {
            times[i].push(ms);
            if (r === 1) sides[i].answers.push(answer);
          }
          if (memoryEvery && Math.floor((q + batch.length) / memoryEvery) > Math.floor(q / memoryEvery)) {
            await sampleMemory(sides[i], `round ${r} query ${q + batch.length}`);
          }
        }
      }
      if (r === 0) continue; // the warm-up round
      loads.push(`${f1(loadStart)}–${f1(loadavg()[0])}`);
      sides.forEach((s, i) => {
        const after = cpuTicks(s.child.pid!);
        s.http.push(times[i]);
        s.cpu.push({ all: ((after.all - before[i].all) * TICK_MS) / queries.length, main: ((after.main - before[i].main) * TICK_MS) / queries.length });
      });
      const [b, t] = sides;
      process.stdout.write(
        `round ${r} (load ${loads[r - 1]}): base p50 / p95 ${f1(pct(b.http[r - 1], 50))} / ${f1(pct(b.http[r - 1], 95))} ms, ` +
          `this ${f1(pct(t.http[r - 1], 50))} / ${f1(pct(t.http[r - 1], 95))} ms; CPU per query base ${f1(b.cpu[r - 1].all)} (main ${f1(b.cpu[r - 1].main)}), ` +
          `this ${f1(t.cpu[r - 1].all)} (main ${f1(t.cpu[r - 1].main)}) ms\n`,
      );
    }
    if (memoryEvery) {
      for (const s of sides) await sampleMemory(s, 'end');
      for (const s of sides) await sampleMemory(s, 'end, after gc()', true);
      await new Promise((done) => setTimeout(done, 5000));
      for (const s of sides) await sampleMemory(s, 'end, 5 s later');
    }
    const differs = (q: number) => sides[0].answers[q] !== sides[1].answers[q];
    const differing = queries.filter((_, q) => differs(q));
    // Held-out queries are counted, never printed: whoever tunes the search reads this output.
    const shown = queries.filter((_, q) => differs(q) && !judged[q].heldOut);
    const hidden = differing.length - shown.length;
    process.stdout.write(
      `\nPOST /api/search, limit 10, ${n} courses: ${queries.length} judged queries × ${rounds} rounds after a warm-up round, ${concurrency} at a time, the two builds alternated\n\n`,
    );
    process.stdout.write(
      '| side | p50 ms | p95 ms | p99 ms | CPU ms per query (main thread) | app start to engines ready | RSS ready / end |\n|---|---|---|---|---|---|---|\n',
    );
    for (const s of sides) {
      const all = s.http.flat();
      process.stdout.write(
        `| ${s.name} (${s.root}) | ${f1(pct(all, 50))} | ${f1(pct(all, 95))} | ${f1(pct(all, 99))} | ${f1(median(s.cpu.map((c) => c.all)))} (${f1(median(s.cpu.map((c) => c.main)))}) | ${(s.readyMs / 1000).toFixed(1)} s | ${Math.round(s.rssReady / 1e6)} / ${Math.round(rssOf(s.child.pid!) / 1e6)} MB |\n`,
      );
    }
    const ratio = (p: number) => sides[1].http.map((xs, r) => f1((100 * pct(xs, p)) / pct(sides[0].http[r], p))).join(', ');
    process.stdout.write(`\nthis / base per round: p50 ${ratio(50)} %; p95 ${ratio(95)} % (load ${loads.join(', ')})\n`);
    process.stdout.write(
      `answers differing between the two: ${differing.length} of ${queries.length}${shown.length ? `: ${shown.slice(0, 10).join(' | ')}` : ''}` +
        `${hidden ? ` (${hidden} of them held-out queries, not shown)` : ''}\n`,
    );
  } finally {
    await Promise.all(
      sides.map(
        (s) =>
          new Promise((done) => {
            s.child.once('exit', done);
            s.child.send({ stop: true });
            setTimeout(() => s.child.kill('SIGKILL'), 10_000).unref();
          }),
      ),
    );
    await scratch.drop();
  }
}

main().catch((e) => {
  process.stderr.write(`search A/B bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
