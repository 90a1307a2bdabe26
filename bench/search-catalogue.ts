/**
 * The benchmarks' catalogues (bench/search.ts, bench/search-ab.ts): random sentence vectors for every course text, and
 * the real catalogue grown to 20,000 courses the way the catalogue loader writes; and the judged queries they send.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const SYNTHETIC_SIZE = 20_000;

/** Every judged query of the eval's files (data/), with its kind, in the order the files list them. */
export function judgedQueries(): Array<{ query: string; kind: string; heldOut: boolean }> {
  const files = [
    'search-eval.json',
    'search-eval-learners.json',
    'search-eval-fresh.json',
    'search-eval-fresh3.json',
    'search-eval-fresh4.json',
    'search-eval-tuning4.json',
    'search-eval-typos.json',
  ];
  return files.flatMap((file) =>
    (JSON.parse(readFileSync(join(__dirname, '..', 'data', file), 'utf8')) as { queries: Array<{ query: string; kind: string; split?: string }> }).queries.map(
      (q) => ({ query: q.query, kind: q.kind, heldOut: q.split?.startsWith('held-out') ?? false }),
    ),
  );
}

/**
 * Gives every course text without a sentence vector a pseudo-random unit vector. Encoding 20,000 course texts takes
 * many minutes of CPU (npm run search:eval measures it); a scan costs the same whatever the vectors hold, so the
 * latency measured here is the real one, query encoding included.
 */
export async function seedSentenceVectors(db: import('typeorm').DataSource): Promise<void> {
  const { allCourseTexts } = await import('../src/search/encoder/course-texts');
  const { SENTENCE_DIMENSIONS, SENTENCE_MODEL, unit } = await import('../src/search/encoder/sentence-model');
  const { SentenceVectorStore } = await import('../src/search/encoder/vector-store');
  const store = new SentenceVectorStore(db, SENTENCE_MODEL);
  let x = 12345;
  const random = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 30 - 1;
  for await (const page of allCourseTexts(db)) {
    const hashes = page.flatMap((c) => c.hashes);
    const stored = await store.stored(hashes);
    const missing = [...new Set(hashes.filter((h) => !stored.has(h)))];
    if (missing.length)
      await store.save(
        missing,
        missing.map(() => unit(Float32Array.from({ length: SENTENCE_DIMENSIONS }, random))),
      );
  }
}

/** Copies real courses (with their topics) under varied titles until the catalogue holds SYNTHETIC_SIZE courses. */
export async function growCatalogue(db: import('typeorm').DataSource): Promise<void> {
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
