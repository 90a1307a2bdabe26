/**
 * Search quality: `npm run search:eval` (`--tuning`: the tuning sets only, what constants may be chosen on;
 * `--verbose`: every tuning query; `--keep` / `--reuse URL`: keep the scratch database for faster repeated runs).
 *
 * Creates a scratch database on the PostgreSQL server of DATABASE_URL (or SEARCH_EVAL_DATABASE_URL), migrates it,
 * loads the real catalogue (data/*.csv), the embedded engine's word vectors and the sentence encoder's course vectors
 * (encoded on every core; kept in the database, so a reused one encodes only texts it has not seen), and runs every
 * file of judged queries in data/ (data/README.md says how each was written and judged) through a plain BM25 baseline
 * (wink-bm25-text-search), our lexical ranking alone, the sentence encoder alone (cosine between the whole query and
 * each course's vector) and ours (lexical fused with the embedded engine and the encoder; with SEARCH_EMBEDDINGS_URL
 * set, the hosted model too). Prints one table of nDCG@10 per kind of query and set, then drops the database.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from '../../src/common/database';
import { projectRoot } from '../../src/common/project-root';
import { AppConfig, loadConfig } from '../../src/config/config';
import type { CatalogueCache } from '../../src/courses/catalogue-cache';
import { CoursesRepository } from '../../src/courses/courses.repository';
import { CoursesService } from '../../src/courses/courses.service';
import { allCourseTexts } from '../../src/search/encoder/course-texts';
import { encodePendingCourses } from '../../src/search/encoder/encode-courses';
import { defaultEncoderThreads, EncoderPool } from '../../src/search/encoder/encoder-pool';
import { SentenceRanker } from '../../src/search/encoder/sentence-ranker';
import { embedPendingCourses } from '../../src/search/embedding-indexer';
import { EmbeddingsClient } from '../../src/search/embeddings.client';
import { BLEND, ENCODER, EXPANSION, FUSION, FUZZY_TITLES, SPELLING } from '../../src/search/ranking-weights';
import { SearchEngine } from '../../src/search/search-engine';
import { SearchFacts } from '../../src/search/search-facts';
import { SearchLexicon } from '../../src/search/search-lexicon';
import { EmbeddedSemantic, preparingSql } from '../../src/search/semantic/embedded-semantic';
import { SemanticSearch } from '../../src/search/semantic-search';
import { buildBm25Baseline } from './bm25-baseline';
import { mean, scoreRanking } from './metrics';
import { createScratchCatalogue, reuseCatalogue } from './scratch-catalogue';

interface Judged {
  query: string;
  relevant: string[];
  kind: string;
  split?: string;
}

type Ranker = (query: string) => Promise<string[]>;

const KINDS = ['natural', 'paraphrase', 'keyword', 'typo', 'filter', 'organisation'];
// Sets whose name starts with "held-out" are never run with --tuning.
const SETS = [
  'old set',
  'tuning half',
  'tuning 2',
  'tuning 3',
  'tuning 4',
  'tuning 5',
  'typos (tuning)',
  'typos 2 (tuning)',
  'typos 3 (tuning)',
  'typos 4 (tuning)',
  'typos 5 (tuning)',
  'typos 6 (tuning)',
  'typos 7 (tuning)',
  'held-out half',
  'held-out 2',
  'held-out 3',
  'held-out 4',
  'held-out 5',
  'held-out typos',
] as const;
type SetName = (typeof SETS)[number];

function load(file: string): Judged[] {
  return (JSON.parse(readFileSync(join(projectRoot(), 'data', file), 'utf8')) as { queries: Judged[] }).queries;
}

/** SEARCH_EVAL_<NAME>='{"key":value}' overrides a table of ranking weights (tune with --tuning only). */
function override(name: string, into: object): void {
  const value = process.env[`SEARCH_EVAL_${name}`];
  if (value) Object.assign(into, JSON.parse(value));
}

async function main(): Promise<void> {
  const verbose = process.argv.includes('--verbose');
  const tuningOnly = process.argv.includes('--tuning');
  override('FUSION', FUSION);
  override('BLEND', BLEND);
  override('EXPANSION', EXPANSION);
  override('ENCODER', ENCODER);
  override('SPELLING', SPELLING);
  override('FUZZY_TITLES', FUZZY_TITLES);
  const reuse = process.argv.includes('--reuse') ? process.argv[process.argv.indexOf('--reuse') + 1] : undefined;
  const typos = load('search-eval-typos.json');
  const sets: Record<SetName, Judged[]> = {
    'old set': load('search-eval.json'),
    'tuning half': load('search-eval-learners.json').filter((q) => q.split === 'tuning'),
    'tuning 2': load('search-eval-tuning2.json'),
    'tuning 3': load('search-eval-tuning3.json'),
    'tuning 4': load('search-eval-tuning4.json'),
    'tuning 5': load('search-eval-tuning5.json'),
    'typos (tuning)': typos.filter((q) => q.split === 'tuning'),
    'typos 2 (tuning)': typos.filter((q) => q.split === 'tuning-2'),
    'typos 3 (tuning)': typos.filter((q) => q.split === 'tuning-3'),
    'typos 4 (tuning)': typos.filter((q) => q.split === 'tuning-4'),
    'typos 5 (tuning)': typos.filter((q) => q.split === 'tuning-5'),
    'typos 6 (tuning)': typos.filter((q) => q.split === 'tuning-6'),
    'typos 7 (tuning)': typos.filter((q) => q.split === 'tuning-7'),
    'held-out half': load('search-eval-learners.json').filter((q) => q.split === 'held-out'),
    'held-out 2': load('search-eval-fresh.json'),
    'held-out 3': load('search-eval-fresh3.json'),
    'held-out 4': load('search-eval-fresh4.json'),
    'held-out 5': load('search-eval-fresh5.json'),
    'held-out typos': typos.filter((q) => q.split === 'held-out'),
  };
  const scratch = reuse ? await reuseCatalogue(reuse) : await createScratchCatalogue('search_eval');
  if (process.argv.includes('--keep')) {
    process.stdout.write(`scratch database kept: ${scratch.url}\n`);
    scratch.drop = async () => scratch.db.destroy();
  }
  const pool = new EncoderPool(defaultEncoderThreads());
  try {
    const db = scratch.db;
    const keys = new Map<number, string>(
      (await sql<{ id: number; source_key: string }>(db, `SELECT id, source_key FROM courses`)).map((r) => [r.id, r.source_key]),
    );
    const lexicon = SearchLexicon.load();
    // Results become list items as the API's do; the cache is never read here.
    const courses = new CoursesService(new CoursesRepository(db), {} as CatalogueCache, { publicBaseUrl: 'http://localhost' } as AppConfig);
    const embedded = new EmbeddedSemantic(preparingSql(db), db, lexicon.stopwords);
    await embedded.refresh();
    const encoder = new SentenceRanker(db);
    // A kept or reused database keeps the vectors of texts no longer read too, so trying other course texts
    // (SEARCH_EVAL_ENCODER) and going back does not encode the catalogue again.
    const keepAll = reuse !== undefined || process.argv.includes('--keep');
    const store = keepAll
      ? {
          stored: (h: string[]) => encoder.store.stored(h),
          save: (h: string[], v: Float32Array[]) => encoder.store.save(h, v),
          prune: () => Promise.resolve(0),
        }
      : encoder.store;
    const run = await encodePendingCourses(allCourseTexts(db), store, pool);
    process.stdout.write(`sentence encoder: ${run.encoded} texts encoded in ${run.ms} ms on ${pool.threads} threads (${ENCODER.texts.join(' + ')})\n`);
    await pool.close();
    await Promise.all([encoder.load(), encoder.refresh()]);
    const search = loadConfig().search;
    let hosted: SemanticSearch | undefined;
    if (search.embeddingsUrl) {
      const client = new EmbeddingsClient({ url: search.embeddingsUrl, model: search.embeddingsModel, apiKey: search.embeddingsApiKey });
      process.stdout.write(`embedded ${await embedPendingCourses(db, client)} courses with ${client.model}\n`);
      hosted = new SemanticSearch(db, client);
    }
    const lexicalOnly = new SearchEngine(db, lexicon, courses);
    // Ours keeps the published courses' facts and titles in memory, as the API does with either semantic engine on.
    const facts = new SearchFacts(db);
    await facts.refresh();
    const ours = new SearchEngine(db, lexicon, courses, { embedded, hosted, encoder }, undefined, facts);
    const bm25 = await buildBm25Baseline(db);
    const ids =
      (engine: SearchEngine): Ranker =>
      async (q) =>
        (await engine.search(q, 10)).results.map((r) => keys.get(r.id)!);
    const rankers: Array<[string, Ranker]> = [
      ['BM25', (q) => Promise.resolve(bm25(q, 10))],
      ['lexical', ids(lexicalOnly)],
      ['encoder', async (q) => ((await encoder.rank(q, 10)) ?? []).map((h) => keys.get(h.id)!)],
      [hosted ? 'ours (+hosted)' : 'ours', ids(ours)],
    ];

    // scores[set|ranker|kind] = nDCG@10 of each query
    const scores = new Map<string, number[]>();
    const key = (set: string, ranker: string, kind: string) => `${set}|${ranker}|${kind}`;
    const add = (k: string, s: number) => scores.set(k, [...(scores.get(k) ?? []), s]);
    for (const set of SETS) {
      if (tuningOnly && set.startsWith('held-out')) continue;
      for (const judged of sets[set]) {
        const line: string[] = [];
        for (const [name, rank] of rankers) {
          const s = scoreRanking(await rank(judged.query), new Set(judged.relevant)).ndcg;
          for (const kind of [judged.kind, 'all']) add(key(set, name, kind), s);
          if (set.startsWith('held-out') && judged.kind === 'natural') add(key('held-out pooled', name, 'natural'), s);
          if (set.startsWith('tuning') && judged.kind === 'natural') add(key('tuning pooled', name, 'natural'), s);
          line.push(`${name} ${s.toFixed(2)}`);
        }
        if (verbose && !set.startsWith('held-out')) process.stdout.write(`${set.padEnd(14)} ${judged.kind.padEnd(12)} ${line.join('  ')}  ${judged.query}\n`);
      }
    }

    const names = rankers.map(([n]) => n);
    const header = ['set', 'kind', 'n', ...names];
    const rows = [...SETS, 'tuning pooled', 'held-out pooled'].flatMap((set) =>
      [...KINDS, 'all'].flatMap((kind) => {
        const n = scores.get(key(set, names[0], kind))?.length ?? 0;
        return n ? [[set, kind, String(n), ...names.map((name) => mean(scores.get(key(set, name, kind))!).toFixed(3))]] : [];
      }),
    );
    process.stdout.write(`\nnDCG@10 over ${keys.size} courses (binary relevance; data/README.md says how the queries were judged)\n\n`);
    process.stdout.write(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|\n`);
    for (const r of rows) process.stdout.write(`| ${r.join(' | ')} |\n`);
    if (!tuningOnly) {
      const ourName = names[names.length - 1];
      const natural = (set: string, ranker: string) => mean(scores.get(key(set, ranker, 'natural')) ?? []);
      const line = ['held-out half', 'held-out 2', 'held-out 3', 'held-out 4', 'held-out 5', 'held-out pooled']
        .map((set) => `${set} ${(natural(set, ourName) / natural(set, 'BM25')).toFixed(2)}`)
        .join(', ');
      process.stdout.write(`\nHeld-out natural questions, ours / BM25: ${line}\n`);
    }
    await embedded.stop();
  } finally {
    await pool.close();
    await scratch.drop();
  }
}

main().catch((e) => {
  process.stderr.write(`search eval failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
