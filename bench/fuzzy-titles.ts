/**
 * What the fuzzy title ranking costs (src/search/fuzzy-titles.ts): `DATABASE_URL=<a database with the catalogue> node
 * -r ./scripts/swc-register.js bench/fuzzy-titles.ts`. Reads the published titles, builds the index over them and over
 * the catalogue grown to 20,000 courses as bench/search-catalogue.ts grows it (each course copied under ten title
 * prefixes), and times FuzzyTitleIndex.rank over the tuning typo queries (data/search-eval-typos.json): each query's
 * content words, its misspelt ones taken as those no title uses; each query also asks the index for its neighbouring
 * words joined (FuzzyTitleIndex.joined) and its misspelt words' closest title words (closest), as the engine does. Prints build time, heap the index holds, and the
 * median, p95 and p99 time per query, and the slowest query's median over five rounds. FUZZY_TITLES_CAP=<n> sets the titles a misspelt word finds at most.
 * Last, the build at 20,000 courses as a reload runs it, in one step (the constructor) and in slices
 * (FuzzyTitleIndex.build), interleaved over FUZZY_TITLES_ROUNDS rounds (default 7), with a 1-ms interval probe: the
 * longest event-loop block and the total time of each, medians.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../src/database/data-source';
import { FuzzyTitleIndex, titleWords } from '../src/search/fuzzy-titles';
import { FUZZY_TITLES } from '../src/search/ranking-weights';
import { SearchLexicon } from '../src/search/search-lexicon';
import { median, probed } from './event-loop-probe';

const CAP = Number(process.env.FUZZY_TITLES_CAP ?? FUZZY_TITLES.maxTitlesPerWord);

const PREFIXES = ['Applied', 'Modern', 'Practical', 'Essential', 'Advanced Topics in', 'Foundations of', 'Mastering', 'Hands-on', 'Principles of', 'Exploring'];

function heapUsed(): number {
  global.gc?.();
  return process.memoryUsage().heapUsed;
}

function measure(label: string, titles: Array<{ id: number; title: string }>, queries: string[], stopwords: Set<string>): void {
  const before = heapUsed();
  const started = performance.now();
  const index = new FuzzyTitleIndex(titles);
  const built = performance.now() - started;
  const held = heapUsed() - before;
  const known = new Set(titles.flatMap((t) => titleWords(t.title)));
  const times: number[] = [];
  // Each query's median over the rounds: a pause of the collector or of the loaded machine inflates one round only.
  const medians: number[] = [];
  let found = 0;
  for (const q of queries) {
    const typed = titleWords(q).filter((w) => !stopwords.has(w));
    const misspelt = typed.filter((w) => w.length >= 4 && !known.has(w));
    const rounds: number[] = [];
    // Round 0 warms the code up and is not counted.
    for (let round = 0; round <= 5; round++) {
      const t = performance.now();
      const hits = index.rank(typed, misspelt, { maxTitlesPerWord: CAP, depth: 100 });
      // What the engine asks of the index before ranking: each pair of neighbouring words joined, each misspelt word's
      // closest title word.
      for (let i = 0; i + 1 < typed.length; i++) index.joined(typed[i], typed[i + 1], misspelt.includes(typed[i]) || misspelt.includes(typed[i + 1]));
      for (const w of misspelt) index.closest(w);
      if (round > 0) rounds.push(performance.now() - t);
      else found += hits.length;
    }
    times.push(...rounds);
    medians.push(rounds.sort((a, b) => a - b)[2]);
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(3);
  process.stdout.write(
    `${label}, cap ${CAP}: ${index.size} titles, built in ${built.toFixed(0)} ms, heap ${(held / 2 ** 20).toFixed(1)} MB; ` +
      `rank per query p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, p99 ${at(0.99)} ms, slowest query's median ${Math.max(...medians).toFixed(3)} ms (${queries.length} queries × 5, ${(found / queries.length).toFixed(0)} titles each)\n`,
  );
}

async function main(): Promise<void> {
  const db = new DataSource(dataSourceOptions(process.env.DATABASE_URL!));
  await db.initialize();
  const titles: Array<{ id: number; title: string }> = await db.query(`SELECT id, title FROM courses WHERE published ORDER BY id`);
  await db.destroy();
  const file = JSON.parse(readFileSync(join(__dirname, '..', 'data', 'search-eval-typos.json'), 'utf8')) as {
    queries: Array<{ query: string; split: string }>;
  };
  const queries = file.queries.filter((q) => q.split.startsWith('tuning')).map((q) => q.query);
  const { stopwords } = SearchLexicon.load();
  measure('real catalogue', titles, queries, stopwords);
  const grown = [...titles];
  for (let copy = 0; grown.length < 20_000; copy++) {
    for (const t of titles) {
      if (grown.length >= 20_000) break;
      grown.push({ id: 1_000_000 * (copy + 1) + t.id, title: `${PREFIXES[copy]} ${t.title}` });
    }
  }
  measure('20,000 courses', grown, queries, stopwords);
  await reloads(grown);
}

/** The build of a reload, one step against slices, interleaved: longest event-loop block and total time, medians. */
async function reloads(titles: Array<{ id: number; title: string }>): Promise<void> {
  const rounds = Number(process.env.FUZZY_TITLES_ROUNDS ?? 7);
  const figures = { 'one step': { block: [] as number[], total: [] as number[] }, sliced: { block: [] as number[], total: [] as number[] } };
  for (let r = 0; r < rounds; r++) {
    for (const variant of r % 2 ? (['sliced', 'one step'] as const) : (['one step', 'sliced'] as const)) {
      global.gc?.();
      const { block, total } = await probed(() => (variant === 'sliced' ? FuzzyTitleIndex.build(titles) : new FuzzyTitleIndex(titles)));
      figures[variant].block.push(block);
      figures[variant].total.push(total);
    }
  }
  for (const [variant, f] of Object.entries(figures))
    process.stdout.write(
      `build of ${titles.length} titles, ${variant}: longest event-loop block ${median(f.block).toFixed(1)} ms (${f.block.map((b) => b.toFixed(0)).join(', ')}), ` +
        `total ${median(f.total).toFixed(1)} ms (medians of ${rounds})\n`,
    );
}

void main();
