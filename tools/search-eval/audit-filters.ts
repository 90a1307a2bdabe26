/**
 * Which filters the engine reads from each tuning query's words: `node -r ./scripts/swc-register.js
 * tools/search-eval/audit-filters.ts --reuse URL` (a scratch database kept by `npm run search:eval -- --keep`).
 * Prints one line per tuning query that gets a filter (level, category, price, duration, organisation), with its kind,
 * so that a filter read from a word that is not one ("experts" the noun, "free time") can be told from one asked for.
 * The held-out sets are never read here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/common/project-root';
import type { AppConfig } from '../../src/config/config';
import type { CatalogueCache } from '../../src/courses/catalogue-cache';
import { CoursesRepository } from '../../src/courses/courses.repository';
import { CoursesService } from '../../src/courses/courses.service';
import { SearchEngine } from '../../src/search/search-engine';
import { SearchLexicon } from '../../src/search/search-lexicon';
import { EmbeddedSemantic, preparingSql } from '../../src/search/semantic/embedded-semantic';
import { reuseCatalogue } from './scratch-catalogue';

interface Judged {
  query: string;
  kind: string;
  split?: string;
}

const load = (file: string): Judged[] => (JSON.parse(readFileSync(join(projectRoot(), 'data', file), 'utf8')) as { queries: Judged[] }).queries;

async function main(): Promise<void> {
  const url = process.argv[process.argv.indexOf('--reuse') + 1];
  if (!process.argv.includes('--reuse') || !url) throw new Error('usage: audit-filters.ts --reuse URL');
  const typos = load('search-eval-typos.json');
  const sets: Array<[string, Judged[]]> = [
    ['old set', load('search-eval.json')],
    ['tuning half', load('search-eval-learners.json').filter((q) => q.split === 'tuning')],
    ['tuning 2', load('search-eval-tuning2.json')],
    ['tuning 3', load('search-eval-tuning3.json')],
    ['tuning 4', load('search-eval-tuning4.json')],
    ...['tuning', 'tuning-2', 'tuning-3', 'tuning-4', 'tuning-5'].map((split): [string, Judged[]] => [
      `typos ${split}`,
      typos.filter((q) => q.split === split),
    ]),
  ];
  const scratch = await reuseCatalogue(url);
  try {
    const lexicon = SearchLexicon.load();
    const courses = new CoursesService(new CoursesRepository(scratch.db), {} as CatalogueCache, { publicBaseUrl: 'http://localhost' } as AppConfig);
    const embedded = new EmbeddedSemantic(preparingSql(scratch.db), scratch.db, lexicon.stopwords);
    await embedded.refresh();
    const engine = new SearchEngine(scratch.db, lexicon, courses, { embedded });
    let total = 0;
    let withFilters = 0;
    for (const [set, queries] of sets) {
      for (const q of queries) {
        total++;
        const { filters } = await engine.understand(q.query);
        const said = Object.entries(filters).filter(([, v]) => v !== undefined);
        if (!said.length) continue;
        withFilters++;
        process.stdout.write(
          `${set.padEnd(14)} ${q.kind.padEnd(12)} ${said
            .map(([k, v]) => `${k}=${String(v)}`)
            .join(', ')
            .padEnd(50)} ${q.query}\n`,
        );
      }
    }
    process.stdout.write(`\n${withFilters} of ${total} tuning queries get a filter\n`);
    await embedded.stop();
  } finally {
    await scratch.db.destroy();
  }
}

main().catch((e) => {
  process.stderr.write(`filter audit failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
