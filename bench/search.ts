/**
 * Search cost: `npm run bench:search` (options: `--rounds N`, default 5).
 *
 * Creates a scratch database on the PostgreSQL server of DATABASE_URL (dropped at the end), loads the real catalogue
 * and the embedded engine's word vectors, boots the real API in process on a free port (no worker, no hosted model)
 * twice, with the embedded semantic engine on and off, side by side, and sends every judged query to each in turn (data/search-eval.json and
 * data/search-eval-learners.json, data/search-eval-fresh.json, data/search-eval-fresh3.json: keywords, typos, filters, organisations and natural questions) one after another,
 * N rounds after a warm-up round; after each query, the same query's encoding alone on the encoder's thread (the
 * reference in the same conditions: the shared machine's load moves both alike). Then grows the catalogue to 20,000 courses (copies of the real ones with varied
 * titles, topics included, indexed by the same triggers) and measures again. Prints p50/p95/p99 of the HTTP round
 * trip (POST /api/search, limit 10) and the time from creating the app to the engine's first index.
 *
 * With the service built (`npm run build`), it also starts `node dist/src/main.js` on the loaded 20,000-course
 * database with the engine on and off, and reports the time to ready (readiness probe, then the semantic engine's
 * index) and the process's RSS.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createScratchCatalogue } from '../tools/search-eval/scratch-catalogue';
import { growCatalogue, judgedQueries, seedSentenceVectors } from './search-catalogue';

const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 5;
const queries = judgedQueries();

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return [pct(s, 50), pct(s, 95), pct(s, 99)].map((x) => x.toFixed(1));
};
const mb = (bytes: number) => `${Math.round(bytes / 1e6)} MB`;
const table: string[][] = [];
const kinds: string[][] = [];

async function main(): Promise<void> {
  const loadBefore = loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
  const scratch = await createScratchCatalogue('search_bench');
  try {
    Object.assign(process.env, {
      DATABASE_URL: scratch.url,
      REDIS_PREFIX: `pa-bench-${Date.now().toString(36)}`,
      LOG_LEVEL: 'silent',
      RUN_WORKER: 'false',
      AUTO_MIGRATE: 'false',
      LOAD_DEMO_CATALOGUE: 'false',
      SEARCH_EMBEDDINGS_URL: '',
    });
    const { loadConfig } = await import('../src/config/config');
    const { createApp } = await import('../src/app.factory');
    const { PartnersService } = await import('../src/partners/partners.service');
    const { SearchService } = await import('../src/search/search.service');

    const boot = async (engine: boolean) => {
      process.env.SEARCH_EMBEDDED_ENGINE = String(engine);
      process.env.SEARCH_SENTENCE_ENCODER = String(engine);
      const started = performance.now();
      const app = await createApp(loadConfig(), { worker: false });
      await app.listen(0, '127.0.0.1');
      const search = app.get(SearchService);
      await Promise.all([search.embedded?.ready, search.encoder?.load(), search.encoder?.refresh()]);
      const ready = performance.now() - started;
      const base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
      const partner = await app
        .get(PartnersService)
        .create({ name: 'Bench', email: `bench-${engine}-${Date.now().toString(36)}@example.com`, plan: 'enterprise', mode: 'test' });
      return {
        app,
        base,
        key: partner.api_key.key,
        ready,
        http: [] as number[],
        byKind: new Map<string, number[]>(),
        encodeAlone: [] as number[],
        semantic: 0,
        unavailable: 0,
        encoder: search.encoder,
      };
    };
    // Both apps run side by side and each query goes to one then the other, so the machine's load (shared, noisy)
    // weighs on both alike: compare the two rows of one catalogue, not figures of different runs.
    const measure = async (label: string) => {
      const on = await boot(true);
      const off = await boot(false);
      for (let r = 0; r <= rounds; r++) {
        for (const { query, kind } of queries) {
          for (const side of r % 2 ? [off, on] : [on, off]) {
            // Every query is encoded again: the figures include the sentence encoder's cost, not its cache's.
            side.encoder?.clearCache();
            const t = performance.now();
            const res = await fetch(`${side.base}/api/search`, {
              method: 'POST',
              headers: { 'Content-Type': 'application/json', 'X-API-Key': side.key },
              body: JSON.stringify({ query, limit: 10 }),
            });
            // A 503 is the search's 1 s statement budget running out on a loaded machine: counted, not measured.
            if (res.status === 503) {
              if (r > 0) side.unavailable++;
              await res.text();
              continue;
            }
            if (res.status !== 200) throw new Error(`search answered ${res.status}: ${await res.text()}`);
            const body = (await res.json()) as { data: { engine: string } };
            if (r > 0) {
              const ms = performance.now() - t;
              side.http.push(ms);
              side.byKind.set(kind, [...(side.byKind.get(kind) ?? []), ms]);
              if (body.data.engine === 'semantic') side.semantic++;
            }
          }
          // The reference in the same conditions: the same query's encoding alone, on the encoder's thread.
          if (on.encoder) {
            on.encoder.clearCache();
            const t = performance.now();
            await on.encoder.encodeQuery(query);
            if (r > 0) on.encodeAlone.push(performance.now() - t);
          }
        }
      }
      const [{ n }] = await scratch.db.query(`SELECT count(*)::int AS n FROM courses WHERE published`);
      for (const side of [on, off]) {
        table.push([
          label,
          String(n),
          side === on ? 'on' : 'off',
          ...stats(side.http),
          side.encodeAlone.length ? stats(side.encodeAlone).slice(0, 2).join(' / ') : '–',
          `${Math.round((100 * side.semantic) / side.http.length)} %`,
          String(side.unavailable),
          `${(side.ready / 1000).toFixed(1)} s`,
        ]);
        kinds.push(...[...side.byKind].map(([kind, xs]) => [label, side === on ? 'on' : 'off', kind, String(xs.length / rounds), ...stats(xs)]));
        await side.app.close();
      }
      // Printed as soon as measured: a failure later in the run does not lose them.
      process.stdout.write(
        `${table
          .slice(-2)
          .map((r) => `| ${r.join(' | ')} |`)
          .join('\n')}\n`,
      );
    };

    await seedSentenceVectors(scratch.db);
    await measure('real catalogue');
    await growCatalogue(scratch.db);
    await seedSentenceVectors(scratch.db);
    await measure('20,000 courses');

    const header = [
      'catalogue',
      'courses',
      'semantic engines',
      'p50 ms',
      'p95 ms',
      'p99 ms',
      'query encoding alone p50 / p95 ms',
      'answers "semantic"',
      '503s',
      'app start to engine ready',
    ];
    process.stdout.write(
      `\nPOST /api/search, limit 10: ${queries.length} judged queries × ${rounds} rounds after a warm-up round, one at a time (load average before: ${loadBefore})\n\n`,
    );
    process.stdout.write(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|\n`);
    for (const r of table) process.stdout.write(`| ${r.join(' | ')} |\n`);

    const kindHeader = ['catalogue', 'semantic engines', 'kind of query', 'queries', 'p50 ms', 'p95 ms', 'p99 ms'];
    process.stdout.write(`\nBy kind of query (the judged sets' kinds)\n\n| ${kindHeader.join(' | ')} |\n|${kindHeader.map(() => '---').join('|')}|\n`);
    for (const r of kinds) process.stdout.write(`| ${r.join(' | ')} |\n`);

    if (existsSync(join(__dirname, '..', 'dist', 'src', 'main.js'))) {
      const rows = [await startService(scratch.url, true), await startService(scratch.url, false)];
      process.stdout.write(`\n\`node dist/src/main.js\` on the loaded 20,000-course database (migrations checked, catalogue present)\n\n`);
      process.stdout.write(`| semantic engine | process start to /health/ready | to engine ready | RSS when ready |\n|---|---|---|---|\n`);
      for (const r of rows) process.stdout.write(`| ${r.join(' | ')} |\n`);
    } else {
      process.stdout.write("\n(run `npm run build` first to measure the built service's start-up and RSS)\n");
    }
  } finally {
    await scratch.drop();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** Starts the built service, times readiness and the engine's "ready" log line, reads its RSS, stops it. */
async function startService(databaseUrl: string, engine: boolean): Promise<string[]> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [join(__dirname, '..', 'dist', 'src', 'main.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'info',
      RUN_WORKER: 'false',
      AUTO_MIGRATE: 'true',
      LOAD_DEMO_CATALOGUE: 'true',
      SEARCH_EMBEDDED_ENGINE: String(engine),
      SEARCH_SENTENCE_ENCODER: String(engine),
    },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let engineReady = 0;
  child.stdout!.on('data', (d: Buffer) => {
    if (!engineReady && d.toString().includes('semantic engine ready')) engineReady = performance.now() - started;
  });
  try {
    let ready = 0;
    while (!ready && performance.now() - started < 120_000) {
      const ok = await fetch(`http://127.0.0.1:${port}/health/ready`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) ready = performance.now() - started;
      else await new Promise((r) => setTimeout(r, 50));
    }
    while (engine && !engineReady && performance.now() - started < 120_000) await new Promise((r) => setTimeout(r, 50));
    const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
    return [engine ? 'on' : 'off', `${(ready / 1000).toFixed(1)} s`, engine ? `${(engineReady / 1000).toFixed(1)} s` : '–', mb(rss)];
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

main().catch((e) => {
  process.stderr.write(`search bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
