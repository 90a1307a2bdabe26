import { DataSource } from 'typeorm';
import { sql } from '../../src/common/database';

// wink ships no types; these are the few calls the baseline makes.
/* eslint-disable @typescript-eslint/no-require-imports */
const bm25 = require('wink-bm25-text-search') as () => {
  defineConfig(c: { fldWeights: Record<string, number> }): void;
  // Each task takes what the one before it returned (text, then tokens), so the list is of any one-argument functions.
  definePrepTasks(tasks: Array<(input: never) => unknown>): void;
  addDoc(doc: Record<string, string>, id: string): void;
  consolidate(): void;
  search(text: string, limit: number): Array<[string, number]>;
};
const nlp = require('wink-nlp-utils') as {
  string: { lowerCase: (s: string) => string; removeExtraSpaces: (s: string) => string; tokenize0: (s: string) => string[] };
  tokens: { removeWords: (t: string[]) => string[]; stem: (t: string[]) => string[] };
};

/** A plain BM25 engine (wink-bm25-text-search, English stemming, equal field weights) over the same published courses. */
export async function buildBm25Baseline(db: DataSource): Promise<(query: string, k: number) => string[]> {
  // All text: source_key varchar (NOT NULL here), title/category varchar, description text, the rest coalesced.
  const rows = await sql<{ source_key: string; title: string; category: string; description: string; topics: string; organisation: string }>(
    db,
    `SELECT c.source_key, c.title, c.category, c.description, coalesce(c.organisation, '') AS organisation,
            coalesce((SELECT string_agg(t.title, ' . ') FROM topics t WHERE t.course_id = c.id), '') AS topics
       FROM courses c WHERE c.published AND c.source_key IS NOT NULL`,
  );
  const engine = bm25();
  engine.defineConfig({ fldWeights: { title: 1, body: 1 } });
  engine.definePrepTasks([nlp.string.lowerCase, nlp.string.removeExtraSpaces, nlp.string.tokenize0, nlp.tokens.removeWords, nlp.tokens.stem]);
  for (const r of rows) engine.addDoc({ title: r.title, body: [r.category, r.organisation, r.topics, r.description].join(' . ') }, r.source_key);
  engine.consolidate();
  return (query, k) => engine.search(query, k).map(([id]) => id);
}
