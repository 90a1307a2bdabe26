/**
 * How long a catalogue change's reload of the search's in-memory indexes holds the event loop at 20,000 courses, two
 * builds side by side: `BENCH_BASE_ROOT=<a built checkout> npm run bench:search-reload -- [--rounds 7] [--first] [--keep |
 * --reuse URL]` (run `npm run build` here first: both sides are loaded from their checkout's dist/).
 *
 * Loads the real catalogue into a scratch database and grows it to 20,000 courses with random sentence vectors, as
 * bench/search-ab.ts does (`--keep` leaves it and prints its URL; `--reuse URL` starts from one). Each round moves the
 * documents' version, as a catalogue edit does, then reloads, one at a time, the order of the builds alternating round
 * by round: SearchFacts (the filter facts, the names, the fuzzy title index) and SentenceIndex (every course's texts
 * read again, the vectors held reused, the matrix built into the spare, as SentenceRanker releases it); with `--first`
 * also a first load of the sentence vectors (every vector read and decoded, as at start-up). A 1-ms interval
 * probe runs across each reload: the longest gap between its ticks is the longest the event loop was held. Prints each
 * reload's medians: longest block, total time, and the ticks the probe got (more ticks: more chances for a request).
 * The npm script runs it with the service's young generation (`--max-semi-space-size=32`, as `npm start`): its
 * collections land inside reloads. Loading the second build's TensorFlow.js prints its "already registered" warnings.
 */
import { join, resolve } from 'node:path';
import { createScratchCatalogue, reuseCatalogue, ScratchCatalogue } from '../tools/search-eval/scratch-catalogue';
import { median, probed } from './event-loop-probe';
import { growCatalogue, seedSentenceVectors } from './search-catalogue';

const arg = (name: string) => process.argv.indexOf(name);
const rounds = Number(process.argv[arg('--rounds') + 1]) || 7;
const keep = arg('--keep') >= 0;
const first = arg('--first') >= 0;
const reuse = arg('--reuse') >= 0 ? process.argv[arg('--reuse') + 1] : undefined;
const baseRoot = process.env.BENCH_BASE_ROOT;
const serviceRoot = resolve(process.env.BENCH_SERVICE_ROOT ?? join(__dirname, '..'));

interface Reloadable {
  refresh(): Promise<unknown>;
}
interface Side {
  name: string;
  facts: Reloadable;
  sentences: Reloadable & { generation: number; release(generation: number): void };
  /** A SentenceIndex of its own, empty: its first load reads and decodes every vector, as at a process's start. */
  fresh(): Reloadable;
}

/** Both in-memory indexes of one build, from its dist/, over the same database. */
function side(name: string, root: string, db: ScratchCatalogue['db']): Side {
  /* eslint-disable @typescript-eslint/no-require-imports -- each build's own compiled classes, loaded by path */
  const { SearchFacts } = require(join(root, 'dist/src/search/search-facts')) as { SearchFacts: new (db: unknown) => Reloadable };
  const { SentenceIndex } = require(join(root, 'dist/src/search/encoder/sentence-index')) as {
    SentenceIndex: new (db: unknown, store: unknown) => Side['sentences'];
  };
  const { SentenceVectorStore } = require(join(root, 'dist/src/search/encoder/vector-store')) as {
    SentenceVectorStore: new (db: unknown, model: string) => unknown;
  };
  const { SENTENCE_MODEL } = require(join(root, 'dist/src/search/encoder/sentence-model')) as { SENTENCE_MODEL: string };
  /* eslint-enable @typescript-eslint/no-require-imports */
  const store = new SentenceVectorStore(db, SENTENCE_MODEL);
  return { name, facts: new SearchFacts(db), sentences: new SentenceIndex(db, store), fresh: () => new SentenceIndex(db, store) };
}

async function main(): Promise<void> {
  if (!baseRoot) throw new Error('BENCH_BASE_ROOT=<a built checkout> is required');
  const scratch = reuse ? await reuseCatalogue(reuse) : await createScratchCatalogue('search_reload');
  try {
    if (!reuse) {
      await seedSentenceVectors(scratch.db);
      await growCatalogue(scratch.db);
      await seedSentenceVectors(scratch.db);
    }
    const [{ n }] = await scratch.db.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM courses WHERE published`);
    const sides = [side('base', resolve(baseRoot), scratch.db), side('this', serviceRoot, scratch.db)];
    // First loads (every vector decoded), not counted.
    for (const s of sides) {
      await s.facts.refresh();
      await s.sentences.refresh();
      s.sentences.release(s.sentences.generation);
    }
    const figures = new Map<string, Array<{ block: number; total: number; ticks: number }>>();
    const record = (key: string, f: { block: number; total: number; ticks: number }) => figures.set(key, [...(figures.get(key) ?? []), f]);
    for (let r = 0; r < rounds; r++) {
      await scratch.db.query(`UPDATE search_versions SET version = version + 1 WHERE name = 'documents'`);
      for (const s of r % 2 ? [...sides].reverse() : sides) {
        record(`${s.name} facts`, await probed(() => s.facts.refresh()));
        record(`${s.name} sentences`, await probed(() => s.sentences.refresh()));
        // As SentenceRanker does once the query thread has the new matrix: the replaced one becomes the spare.
        s.sentences.release(s.sentences.generation);
        if (first) record(`${s.name} sentences, first load`, await probed(() => s.fresh().refresh()));
        global.gc?.();
      }
    }
    process.stdout.write(
      `${n} published courses, ${rounds} rounds, medians:\n\n| reload | longest block ms | total ms | probe ticks |\n| --- | --- | --- | --- |\n`,
    );
    for (const [key, fs] of figures) {
      const m = (k: 'block' | 'total' | 'ticks') => median(fs.map((f) => f[k])).toFixed(k === 'ticks' ? 0 : 1);
      process.stdout.write(`| ${key} | ${m('block')} (${fs.map((f) => f.block.toFixed(0)).join(', ')}) | ${m('total')} | ${m('ticks')} |\n`);
    }
    if (keep && !reuse) process.stdout.write(`\nkept: --reuse ${scratch.url}\n`);
  } finally {
    if (keep || reuse) await scratch.db.destroy();
    else await scratch.drop();
  }
}

main().catch((e) => {
  process.stderr.write(`search reload bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
