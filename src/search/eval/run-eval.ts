/**
 * Search quality: `npm run search:eval` (`--verbose` prints every tuning question).
 *
 * Creates a scratch database on the PostgreSQL server of DATABASE_URL (or SEARCH_EVAL_DATABASE_URL), migrates it,
 * loads the real catalogue (data/*.csv) and the embedded engine's word vectors, and runs the judged queries of
 * data/search-eval.json (the old set), data/search-eval-learners.json (its tuning and held-out halves), more tuning
 * questions (data/search-eval-tuning2.json, tuning 2: tuned on like the tuning half) and the later held-out sets data/search-eval-fresh.json (held-out 2) and data/search-eval-fresh3.json (held-out 3) through a
 * plain BM25 baseline (wink-bm25-text-search) over the same courses, our lexical ranking alone, and ours (lexical fused
 * with the embedded semantic engine; with SEARCH_EMBEDDINGS_URL set, with the hosted model too). Prints one table of
 * nDCG@10 per kind of query and set, then drops the database.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from '../../common/database';
import { projectRoot } from '../../common/project-root';
import { loadConfig } from '../../config/config';
import { CourseUrls } from '../../courses/course-urls';
import { EmbeddingsClient } from '../embeddings.client';
import { embedPendingCourses } from '../embedding-indexer';
import { SearchEngine } from '../search-engine';
import { FUSION } from '../rank-fusion';
import { SearchLexicon } from '../search-lexicon';
import { BLEND, EmbeddedSemantic, preparingSql } from '../semantic/embedded-semantic';
import { EXPANSION } from '../semantic/expanded-bm25';
import { SemanticSearch } from '../semantic-search';
import { buildBm25Baseline } from './bm25-baseline';
import { mean, scoreRanking } from './metrics';
import { createScratchCatalogue, reuseCatalogue } from './scratch-catalogue';

interface Judged {
  query: string;
  relevant: string[];
  kind: string;
  split?: 'tuning' | 'held-out' | 'held-out 2' | 'held-out 3';
}

type Ranker = (query: string) => Promise<string[]>;

const KINDS = ['natural', 'paraphrase', 'keyword', 'typo', 'filter', 'organisation'];
const SETS = ['old set', 'tuning half', 'tuning 2', 'held-out half', 'held-out 2', 'held-out 3'] as const;

function load(file: string): Judged[] {
  return (JSON.parse(readFileSync(join(projectRoot(), 'data', file), 'utf8')) as { queries: Judged[] }).queries;
}

async function main(): Promise<void> {
  const verbose = process.argv.includes('--verbose');
  // --tuning: the old set, the tuning half and tuning 2 only (what tuning may look at); --keep: leave the scratch database and
  // print its URL; --reuse URL: run on such a database (faster repeated runs while tuning).
  const tuningOnly = process.argv.includes('--tuning');
  // SEARCH_EVAL_FUSION='{"lexicalWeak":0.3}': try other fusion weights (with --tuning only: never chosen on held-out sets).
  if (process.env.SEARCH_EVAL_FUSION) Object.assign(FUSION, JSON.parse(process.env.SEARCH_EVAL_FUSION));
  // SEARCH_EVAL_BLEND / SEARCH_EVAL_EXPANSION: the same for the embedded engine's constants (BLEND, EXPANSION).
  if (process.env.SEARCH_EVAL_BLEND) Object.assign(BLEND, JSON.parse(process.env.SEARCH_EVAL_BLEND));
  if (process.env.SEARCH_EVAL_EXPANSION) Object.assign(EXPANSION, JSON.parse(process.env.SEARCH_EVAL_EXPANSION));
  const reuse = process.argv.includes('--reuse') ? process.argv[process.argv.indexOf('--reuse') + 1] : undefined;
  const sets: Record<(typeof SETS)[number], Judged[]> = {
    'old set': load('search-eval.json'),
    'tuning half': load('search-eval-learners.json').filter((q) => q.split === 'tuning'),
    'tuning 2': load('search-eval-tuning2.json'),
    'held-out half': load('search-eval-learners.json').filter((q) => q.split === 'held-out'),
    'held-out 2': load('search-eval-fresh.json'),
    'held-out 3': load('search-eval-fresh3.json'),
  };
  const scratch = reuse ? await reuseCatalogue(reuse) : await createScratchCatalogue('search_eval');
  if (process.argv.includes('--keep')) {
    process.stdout.write(`scratch database kept: ${scratch.url}\n`);
    scratch.drop = async () => scratch.db.destroy();
  }
  try {
    const db = scratch.db;
    const keys = new Map<number, string>(
      (await sql<{ id: number; source_key: string }>(db, `SELECT id, source_key FROM courses`)).map((r) => [r.id, r.source_key]),
    );
    const lexicon = SearchLexicon.load();
    const urls = new CourseUrls('http://localhost');
    const embedded = new EmbeddedSemantic(preparingSql(db), db, lexicon.stopwords);
    await embedded.refresh();
    const search = loadConfig().search;
    let hosted: SemanticSearch | undefined;
    if (search.embeddingsUrl) {
      const client = new EmbeddingsClient({ url: search.embeddingsUrl, model: search.embeddingsModel, apiKey: search.embeddingsApiKey });
      process.stdout.write(`embedded ${await embedPendingCourses(db, client)} courses with ${client.model}\n`);
      hosted = new SemanticSearch(db, client);
    }
    const lexicalOnly = new SearchEngine(db, lexicon, urls);
    const ours = new SearchEngine(db, lexicon, urls, { embedded, hosted });
    const bm25 = await buildBm25Baseline(db);
    const ids =
      (engine: SearchEngine): Ranker =>
      async (q) =>
        (await engine.search(q, 10)).results.map((r) => keys.get(r.id)!);
    const rankers: Array<[string, Ranker]> = [
      ['BM25', (q) => Promise.resolve(bm25(q, 10))],
      ['lexical', ids(lexicalOnly)],
      [hosted ? 'ours (+hosted)' : 'ours', ids(ours)],
    ];

    // scores[set][ranker][kind] = nDCG@10 of each query
    const scores = new Map<string, number[]>();
    const key = (set: string, ranker: string, kind: string) => `${set}|${ranker}|${kind}`;
    for (const set of SETS) {
      if (tuningOnly && set.startsWith('held-out')) continue;
      for (const judged of sets[set]) {
        const line: string[] = [];
        for (const [name, rank] of rankers) {
          const s = scoreRanking(await rank(judged.query), new Set(judged.relevant)).ndcg;
          for (const kind of [judged.kind, 'all']) scores.set(key(set, name, kind), [...(scores.get(key(set, name, kind)) ?? []), s]);
          line.push(`${name} ${s.toFixed(2)}`);
        }
        if (verbose && set.startsWith('tuning')) process.stdout.write(`${set.padEnd(14)} ${judged.kind.padEnd(12)} ${line.join('  ')}  ${judged.query}\n`);
      }
    }

    const names = rankers.map(([n]) => n);
    const header = ['set', 'kind', 'n', ...names];
    const rows = SETS.flatMap((set) =>
      [...KINDS, 'all'].flatMap((kind) => {
        const n = scores.get(key(set, names[0], kind))?.length ?? 0;
        return n ? [[set, kind, String(n), ...names.map((name) => mean(scores.get(key(set, name, kind))!).toFixed(3))]] : [];
      }),
    );
    process.stdout.write(`\nnDCG@10 over ${keys.size} courses (binary relevance; data/README.md says how the queries were judged)\n\n`);
    process.stdout.write(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|\n`);
    for (const r of rows) process.stdout.write(`| ${r.join(' | ')} |\n`);
    const natural = (set: string, ranker: string) => mean(scores.get(key(set, ranker, 'natural')) ?? []);
    const ratio = (set: string) => (natural(set, names[2]) / natural(set, 'BM25')).toFixed(2);
    if (!tuningOnly)
      process.stdout.write(
        `\nHeld-out natural questions: ours / BM25 = ${ratio('held-out half')} (held-out half), ${ratio('held-out 2')} (held-out 2), ${ratio('held-out 3')} (held-out 3) (target ≥ 1.5)\n`,
      );
    embedded.stop();
  } finally {
    await scratch.drop();
  }
}

main().catch((e) => {
  process.stderr.write(`search eval failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
