import { createHash } from 'node:crypto';
import type { Queryable } from '../../src/common/database';
import { allCourseTexts, CourseTexts } from '../../src/search/encoder/course-texts';
import { buildMatrix, SentenceIndex } from '../../src/search/encoder/sentence-index';
import { SENTENCE_DIMENSIONS, unit } from '../../src/search/encoder/sentence-model';
import type { SentenceMatrix } from '../../src/search/encoder/sentence-scan';
import type { SentenceVectorStore } from '../../src/search/encoder/vector-store';
import type { CourseWords } from '../../src/search/search.store';

const D = SENTENCE_DIMENSIONS;

/** A unit vector drawn from the text's hash: the same text, the same vector, as a store gives it. */
function vectorOf(hash: string): Float32Array {
  let x = createHash('md5').update(hash).digest().readUInt32LE(0) % 2 ** 31;
  const v = new Float32Array(D);
  for (let i = 0; i < D; i++) v[i] = (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 30 - 1;
  return unit(v);
}

/** The course_words pages and the search_versions stamps SentenceIndex reads, from memory. */
function catalogueDb(courses: CourseWords[]) {
  const db = {
    courses,
    documents: 'd1',
    query: (text: string, params: unknown[] = []) => {
      if (text.includes('search_versions')) return Promise.resolve([{ version: params[0] === 'documents' ? db.documents : 'v1' }]);
      const [after, limit] = params as number[];
      return Promise.resolve(db.courses.filter((c) => c.id > after).slice(0, limit));
    },
  };
  return db;
}

const coursesOf = (n: number, edition: string): CourseWords[] =>
  Array.from({ length: n }, (_, i) => ({ id: i + 1, title: `Course ${i} ${edition}`, category: 'Science', topics: '', description: `About ${i}.` }));

async function textsOf(db: Queryable): Promise<CourseTexts[]> {
  const out: CourseTexts[] = [];
  for await (const page of allCourseTexts(db)) out.push(...page);
  return out;
}

/** How many floats of the two matrices differ, compared as bits. */
function differing(a: SentenceMatrix, b: SentenceMatrix): number {
  const bits = (m: SentenceMatrix) => new Uint32Array(m.rows.matrix.buffer, m.rows.matrix.byteOffset, m.ids.length * D);
  const [x, y] = [bits(a), bits(b)];
  let n = Math.abs(x.length - y.length);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) n++;
  return n;
}

describe('the sentence index reloaded in slices', () => {
  it('serves the old matrix until the new one is complete, then the same one a build in one step writes', async () => {
    // Enough courses for a build of several slices, even on a fast machine.
    const db = catalogueDb(coursesOf(4000, 'first'));
    const store = {
      stamp: () => Promise.resolve('v1'),
      load: (hashes: string[]) => Promise.resolve(new Map(hashes.map((h) => [h, vectorOf(h)]))),
    } as unknown as SentenceVectorStore;
    const index = new SentenceIndex(db, store);
    expect(await index.refresh()).toBe(true);
    const first = index.matrix;
    expect(index.size).toBe(4000);

    // A catalogue edit: every title changes, so every row does.
    db.courses = coursesOf(4000, 'second');
    db.documents = 'd2';
    let done = false;
    const reload = index.refresh().then((changed) => ((done = true), changed));
    let turns = 0;
    // Between the build's slices, the old matrix and generation, whole, are what a search reads.
    while (!done) {
      await new Promise((r) => setImmediate(r));
      if (done) break;
      turns++;
      expect(index.matrix).toBe(first);
      expect(index.generation).toBe(1);
    }
    expect(await reload).toBe(true);
    expect(turns).toBeGreaterThan(0);
    expect(index.generation).toBe(2);
    const texts = await textsOf(db);
    const whole = buildMatrix(texts, new Map(texts.flatMap((c) => c.hashes).map((h) => [h, vectorOf(h)])), null);
    expect(Array.from(index.matrix.ids)).toEqual(Array.from(whole.ids));
    expect(differing(index.matrix, whole)).toBe(0);
    // Nothing changed since: no reload.
    expect(await index.refresh()).toBe(false);
  });
});
