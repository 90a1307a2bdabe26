/**
 * Search latency: `npm run bench:search` (options: `--rounds N`, default 5).
 *
 * Creates a scratch database on the PostgreSQL server of DATABASE_URL (dropped at the end), loads the real catalogue,
 * boots the real API on a free port (no worker, no hosted model: the lexical engine) and sends the 50 judged queries of
 * data/search-eval.json one after another, N rounds after a warm-up round. Then grows the catalogue to 20,000 courses
 * (copies of the real ones with varied titles, topics included, indexed by the same triggers) and measures again.
 * Prints p50/p95/p99 of the HTTP round trip (POST /api/search, limit 10) and of the search itself in process.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createScratchCatalogue } from '../src/search/eval/scratch-catalogue';

const SYNTHETIC_SIZE = 20_000;
const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 5;
const queries: string[] = JSON.parse(readFileSync(join(__dirname, '..', 'data', 'search-eval.json'), 'utf8')).queries.map((q: { query: string }) => q.query);

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const fmt = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `p50 ${pct(s, 50).toFixed(1)} ms  p95 ${pct(s, 95).toFixed(1)} ms  p99 ${pct(s, 99).toFixed(1)} ms  (n=${s.length})`;
};

async function main(): Promise<void> {
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
    const app = await createApp(loadConfig(), { worker: false });
    await app.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
    const partner = await app.get(PartnersService).create({ name: 'Bench', email: 'bench@example.com', plan: 'enterprise', mode: 'test' });
    const key = partner.api_key.key;
    const service = app.get(SearchService);

    const measure = async (label: string) => {
      const http: number[] = [];
      const inProcess: number[] = [];
      for (let r = 0; r <= rounds; r++) {
        for (const query of queries) {
          let t = performance.now();
          const res = await fetch(`${base}/api/search`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-API-Key': key }, body: JSON.stringify({ query, limit: 10 }) });
          if (res.status !== 200) throw new Error(`search answered ${res.status}: ${await res.text()}`);
          await res.arrayBuffer();
          if (r > 0) http.push(performance.now() - t);
          t = performance.now();
          await service.search(query, 10);
          if (r > 0) inProcess.push(performance.now() - t);
        }
      }
      const [{ n }] = await scratch.db.query(`SELECT count(*)::int AS n FROM courses WHERE published`);
      process.stdout.write(`\n${label} (${n} published courses), ${queries.length} queries × ${rounds} rounds\n`);
      process.stdout.write(`  HTTP POST /api/search  ${fmt(http)}\n  search in process     ${fmt(inProcess)}\n`);
    };

    await measure('Real catalogue');
    await growCatalogue(scratch.db);
    await measure('Synthetic catalogue');
    await app.close();
  } finally {
    await scratch.drop();
  }
}

/** Copies real courses (with their topics) under varied titles until the catalogue holds SYNTHETIC_SIZE courses. */
async function growCatalogue(db: import('typeorm').DataSource): Promise<void> {
  const started = performance.now();
  // As the catalogue loader does: search documents built once at the end, index pending lists merged.
  await db.transaction(async (em) => {
    await em.query(`SET LOCAL search.defer_refresh = 'on'`);
    await em.query(`
    WITH base AS (SELECT c.*, row_number() OVER (ORDER BY c.id) AS rn FROM courses c),
    copies AS (
      SELECT b.*, g AS copy FROM base b CROSS JOIN generate_series(1, 10) g
      ORDER BY g, b.rn LIMIT ${SYNTHETIC_SIZE} - (SELECT count(*) FROM courses)
    ), inserted AS (
      INSERT INTO courses (title, description, category, level, duration_minutes, rating, enrolled, credit_cost, tutor_id, organisation, published, source_key)
      SELECT left((ARRAY['Applied','Modern','Practical','Essential','Advanced Topics in','Foundations of','Mastering','Hands-on','Principles of','Exploring'])[copy] || ' ' || title, 300),
             description, category, level, duration_minutes, rating, enrolled / (copy + 1), credit_cost, tutor_id, organisation, true,
             source_key || ':synthetic:' || copy
        FROM copies
      RETURNING id, source_key
    )
    INSERT INTO topics (course_id, position, title, duration_minutes, has_quiz, is_preview)
    SELECT i.id, t.position, t.title, t.duration_minutes, t.has_quiz, t.is_preview
      FROM inserted i
      JOIN courses src ON src.source_key = split_part(i.source_key, ':synthetic:', 1)
      JOIN topics t ON t.course_id = src.id`);
    await em.query(`SELECT search_refresh_documents(ARRAY(SELECT id FROM courses WHERE source_key LIKE '%:synthetic:%'))`);
    await em.query(`SELECT search_flush_pending()`);
  });
  await db.query('ANALYZE');
  process.stdout.write(`\n(grew the catalogue in ${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
}

main().catch((e) => {
  process.stderr.write(`search bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
