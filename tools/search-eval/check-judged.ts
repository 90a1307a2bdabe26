/**
 * Checks files of judged queries: `node -r ./scripts/swc-register.js tools/search-eval/check-judged.ts data/search-eval-fresh3.json …`
 * (no file: every data/search-eval*.json).
 *
 * For each natural question: every relevant `source_key` is a course of the built catalogue (data/*.csv), and no English
 * stem of the question (PostgreSQL's `english` configuration, the one that indexes the catalogue) is a stem of any of
 * its relevant courses' titles. Needs a PostgreSQL server (DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres)
 * for the stemming only. Prints each violation and exits 1 when there is any.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { projectRoot } from '../../src/common/project-root';
import { buildCatalogue, readCatalogueFiles } from '../../src/courses/catalogue/build-catalogue';

interface Judged {
  query: string;
  relevant: string[];
  kind: string;
}

async function main(): Promise<void> {
  const dataDir = join(projectRoot(), 'data');
  const files = process.argv.slice(2).length
    ? process.argv.slice(2)
    : readdirSync(dataDir)
        .filter((f) => /^search-eval.*\.json$/.test(f))
        .map((f) => join(dataDir, f));
  const titles = new Map(buildCatalogue(readCatalogueFiles(dataDir)).map((c) => [c.sourceKey, c.title]));
  const client = new Client({ connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
  await client.connect();
  const stems = async (text: string): Promise<string[]> =>
    // tsvector_to_array: text[] of the lexemes, in order.
    (await client.query<{ s: string[] }>(`SELECT tsvector_to_array(to_tsvector('english', $1)) AS s`, [text])).rows[0]?.s ?? [];
  let problems = 0;
  try {
    for (const file of files) {
      const queries = (JSON.parse(readFileSync(file, 'utf8')) as { queries: Judged[] }).queries;
      let natural = 0;
      for (const q of queries) {
        for (const key of q.relevant) {
          if (!titles.has(key)) {
            problems++;
            process.stdout.write(`${file}: "${q.query}": ${key} is not in the catalogue\n`);
          }
        }
        if (q.kind !== 'natural') continue;
        natural++;
        if (!q.relevant.length) {
          problems++;
          process.stdout.write(`${file}: "${q.query}": no relevant course\n`);
        }
        const own = new Set(await stems(q.query));
        for (const key of q.relevant) {
          const shared = (await stems(titles.get(key) ?? '')).filter((s) => own.has(s));
          if (shared.length) {
            problems++;
            process.stdout.write(`${file}: "${q.query}" shares ${shared.join(', ')} with the title of ${key} ("${titles.get(key)}")\n`);
          }
        }
      }
      process.stdout.write(`${file}: ${queries.length} queries, ${natural} natural questions checked\n`);
    }
  } finally {
    await client.end();
  }
  if (problems) {
    process.stdout.write(`${problems} problem(s)\n`);
    process.exit(1);
  }
}

main().catch((e) => {
  process.stderr.write(`check failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
