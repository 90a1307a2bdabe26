/**
 * Search quality: `npm run search:eval`.
 *
 * Creates a scratch database on the PostgreSQL server of DATABASE_URL (or SEARCH_EVAL_DATABASE_URL), migrates it,
 * loads the real catalogue (data/*.csv), runs every judged query of data/search-eval.json through our ranker and through
 * a plain BM25 baseline (wink-bm25-text-search) over the same courses, prints nDCG@10, recall@10 and MRR@10 for both,
 * then drops the database. With SEARCH_EMBEDDINGS_URL set, courses are embedded first and the fused ranking is scored too.
 * `--verbose` prints each query's interpretation and scores.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../common/project-root';
import { loadConfig } from '../../config/config';
import { CourseUrls } from '../../courses/course.mapper';
import { EmbeddingsClient } from '../embeddings.client';
import { embedPendingCourses } from '../embedding-indexer';
import { SearchEngine } from '../search-engine';
import { SearchLexicon } from '../search-lexicon';
import { SemanticSearch } from '../semantic-search';
import { buildBm25Baseline } from './bm25-baseline';
import { mean, scoreRanking } from './metrics';
import { createScratchCatalogue } from './scratch-catalogue';

interface Judged {
  query: string;
  relevant: string[];
  kind?: string;
}

type Ranker = (query: string) => Promise<string[]>;

async function main(): Promise<void> {
  const verbose = process.argv.includes('--verbose');
  const judged: Judged[] = JSON.parse(readFileSync(join(projectRoot(), 'data', 'search-eval.json'), 'utf8')).queries;
  const scratch = await createScratchCatalogue('search_eval');
  try {
    const db = scratch.db;
    const keys = new Map<number, string>((await db.query(`SELECT id, source_key FROM courses`)).map((r: { id: number; source_key: string }) => [r.id, r.source_key]));
    const lexicon = SearchLexicon.load();
    const urls = new CourseUrls('http://localhost');
    const ours = new SearchEngine(db, lexicon, urls);
    const bm25 = await buildBm25Baseline(db);
    const rankers: Array<[string, Ranker]> = [
      ['BM25 baseline (wink)', async (q) => bm25(q, 10)],
      ['ours (lexical)', async (q) => (await ours.search(q, 10)).results.map((r) => keys.get(r.id)!)],
    ];
    const search = loadConfig().search;
    if (search.embeddingsUrl) {
      const client = new EmbeddingsClient({ url: search.embeddingsUrl, model: search.embeddingsModel, apiKey: search.embeddingsApiKey });
      const embedded = await embedPendingCourses(db, client);
      process.stdout.write(`embedded ${embedded} courses with ${client.model}\n`);
      const fused = new SearchEngine(db, lexicon, urls, new SemanticSearch(db, client));
      rankers.push(['ours (semantic + lexical)', async (q) => (await fused.search(q, 10)).results.map((r) => keys.get(r.id)!)]);
    }

    const rows: string[][] = [];
    const ndcgs: number[] = [];
    for (const [name, rank] of rankers) {
      const scores = [];
      for (const j of judged) {
        const s = scoreRanking(await rank(j.query), new Set(j.relevant));
        scores.push({ ...s, kind: j.kind ?? 'plain' });
        if (verbose && name.startsWith('ours')) {
          const { interpreted } = await ours.search(j.query, 1);
          process.stdout.write(`${name.padEnd(12)} ndcg=${s.ndcg.toFixed(2)} ${j.query.padEnd(48)} ${JSON.stringify(interpreted)}\n`);
        }
      }
      const ndcg = mean(scores.map((s) => s.ndcg));
      ndcgs.push(ndcg);
      const para = scores.filter((s) => s.kind === 'paraphrase');
      rows.push([name, ndcg.toFixed(3), mean(scores.map((s) => s.recall)).toFixed(3), mean(scores.map((s) => s.rr)).toFixed(3), mean(para.map((s) => s.ndcg)).toFixed(3)]);
    }
    const header = ['ranker', 'nDCG@10', 'recall@10', 'MRR@10', 'nDCG@10 paraphrases'];
    process.stdout.write(`\n${judged.length} judged queries over ${keys.size} courses\n\n`);
    process.stdout.write(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|\n`);
    for (const r of rows) process.stdout.write(`| ${r.join(' | ')} |\n`);
    const gain = (ndcgs[1] / ndcgs[0] - 1) * 100;
    process.stdout.write(`\nnDCG@10 of our lexical ranker vs BM25: ${gain >= 0 ? '+' : ''}${gain.toFixed(1)} % (target ≥ +15 %)\n`);
  } finally {
    await scratch.drop();
  }
}

main().catch((e) => {
  process.stderr.write(`search eval failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
