import { ScratchCatalogue, createScratchCatalogue } from '../../tools/search-eval/scratch-catalogue';
import { sql } from '../../src/common/database';
import { LexicalSearch } from '../../src/search/lexical-search.store';
import { Concept, toTsQuery } from '../../src/search/query-parser';
import { createPartner } from '../support/factories';
import { startApp } from '../support/app';

// The lexical ranking on the real catalogue against the plainest statement that says what it ranks by: every head
// naming any concept scored with its weighted rank, the all-concepts bonus tested on the head itself and its
// popularity; the best 100 re-ordered by title similarity. The statements rank searches another way (the heads naming
// every concept read from the index), and must give the same courses, in the same order, with the same scores.
let scratch: ScratchCatalogue;
let lexical: LexicalSearch;

beforeAll(async () => {
  scratch = await createScratchCatalogue('search_lexical_rank', { wordVectors: false, template: process.env.PA_TEST_TEMPLATE_URL });
  lexical = new LexicalSearch(scratch.db);
}, 300_000);
afterAll(async () => {
  await scratch?.drop();
});

const words = (...alternatives: string[]): Concept => alternatives.map((a) => a.split(' '));

async function reference(concepts: Concept[], text: string, allList: boolean): Promise<Array<{ id: number; score: number }>> {
  const rows = await sql<{ id: number; score: number }>(
    scratch.db,
    `WITH q AS (SELECT to_tsquery('english', $1) AS any_q, to_tsquery('english', $2) AS all_q),
          matches AS (
            SELECT h.course_id AS id, h.head @@ q.all_q AS all_match,
                   ts_rank('{0.05, 0.2, 0.45, 1.0}', h.head, q.any_q) + CASE WHEN h.head @@ q.all_q THEN 0.5 ELSE 0 END + 0.02 * h.popularity AS base
              FROM search_heads h, q WHERE h.head @@ q.any_q AND h.published),
          best AS (SELECT id, base FROM matches WHERE all_match OR NOT $4 ORDER BY base DESC, id LIMIT 100)
     SELECT b.id, b.base + 0.3 * word_similarity($3, lower(c.title)) AS score
       FROM best b JOIN courses c ON c.id = b.id ORDER BY score DESC, b.id`,
    [toTsQuery(concepts, '|'), toTsQuery(concepts, '&'), text, allList],
  );
  return rows.map((r) => ({ id: r.id, score: Number(r.score) }));
}

async function matching(concepts: Concept[]): Promise<number> {
  const [{ n }] = await sql<{ n: number }>(
    scratch.db,
    `SELECT count(*)::int AS n FROM search_heads h WHERE h.head @@ to_tsquery('english', $1) AND h.published`,
    [toTsQuery(concepts, '|')],
  );
  return n;
}

describe('the lexical ranking of heads', () => {
  it('ranks a broad question (hundreds of heads, phrases among the synonyms) as the plain statement does', async () => {
    const concepts = [words('python'), words('finance', 'financial markets', 'money')];
    const text = 'python finance';
    const total = await matching(concepts);
    expect(total).toBeGreaterThan(200);
    const page = await lexical.rank(concepts, text, {}, 10, 100);
    expect(page.total).toBe(total);
    // Fewer than 10 courses name both outside their description: those are the page's allIds, and the ranking of
    // every match follows the courses naming both somewhere, description included.
    const all = await reference(concepts, text, true);
    expect(all.length).toBeGreaterThan(0);
    expect(all.length).toBeLessThan(10);
    expect(page.allIds).toEqual(all.map((h) => h.id));
    const anywhere = new Set(
      (
        await sql<{ id: number }>(
          scratch.db,
          `SELECT d.course_id AS id FROM search_documents d JOIN search_heads h ON h.course_id = d.course_id
            WHERE d.document @@ to_tsquery('english', $1) AND h.published`,
          [toTsQuery(concepts, '&')],
        )
      ).map((r) => r.id),
    );
    const ranked = page.hits.filter((h) => !anywhere.has(h.id));
    const expected = (await reference(concepts, text, false)).filter((h) => !anywhere.has(h.id));
    expect(ranked.length).toBeGreaterThan(50);
    // (their scores are capped below those courses' by the merge, so the order is what is compared)
    expect(ranked.map((h) => h.id)).toEqual(expected.slice(0, ranked.length).map((h) => h.id));
  });

  it('ranks the courses naming every concept of a short query as the plain statement does, when there are enough', async () => {
    const concepts = [words('data'), words('analysis', 'analytics')];
    const page = await lexical.rank(concepts, 'data analysis', {}, 10, 100);
    const all = await reference(concepts, 'data analysis', true);
    expect(all.length).toBeGreaterThanOrEqual(10);
    expect(page.allConcepts).toBe(true);
    expect(page.hits).toEqual(all.slice(0, 100).map((h) => ({ id: h.id, score: expect.closeTo(h.score, 6) as number })));
    expect(page.total).toBe(await matching(concepts));
  });

  it('ranks one concept as the plain statement does (every match names every concept)', async () => {
    const concepts = [words('machine learning', 'deep learning')];
    const page = await lexical.rank(concepts, 'machine learning', {}, 10, 100);
    const all = await reference(concepts, 'machine learning', false);
    expect(all.length).toBeGreaterThan(10);
    expect(page.hits).toEqual(all.map((h) => ({ id: h.id, score: expect.closeTo(h.score, 6) as number })));
    expect(page.total).toBe(await matching(concepts));
  });
});

describe('the statements a search sends', () => {
  it('prepares the corrections, the subject counts and the head rankings, not the descriptions ranking', async () => {
    const sent: Array<{ prepared: boolean; text: string }> = [];
    const recording = new LexicalSearch({
      query: (query: unknown, params?: unknown[]) => {
        const statement = query as string | { name: string; text: string };
        sent.push(typeof statement === 'string' ? { prepared: false, text: statement } : { prepared: Boolean(statement.name), text: statement.text });
        return scratch.db.query(statement as string, params);
      },
    });
    const corrections = await recording.correctionCandidates(['calculas', 'enginers']);
    expect(corrections.get('calculas')?.[0]?.fix).toBe('calculus');
    await recording.subjectScores([words('calculus'), words('engineers')]);
    const page = await recording.rank([words('calculus'), words('engineers')], 'calculus engineers', {}, 10, 100);
    await recording.rank([words('calculus')], 'calculus', {}, 10, 100);
    expect(page.hits.length).toBeGreaterThan(0);
    const kinds = sent.map((s) => ({
      prepared: s.prepared,
      statement: /one_edit AS/.test(s.text)
        ? 'corrections'
        : /AS docs/.test(s.text)
          ? 'subject counts'
          : /search_documents d/.test(s.text)
            ? 'descriptions'
            : 'heads',
    }));
    expect(kinds).toEqual([
      { prepared: true, statement: 'corrections' },
      { prepared: true, statement: 'subject counts' },
      { prepared: true, statement: 'heads' },
      { prepared: false, statement: 'descriptions' },
      { prepared: true, statement: 'heads' },
    ]);
    // Asked again (the statement already prepared on the connection), the same answer.
    expect(await recording.correctionCandidates(['calculas', 'enginers'])).toEqual(corrections);
  });
});

describe('a short corrected query', () => {
  it("asks for its subject's ranking beside the first ranking, not after it, with the same answer", async () => {
    const t = await startApp({ DATABASE_URL: scratch.url, SEARCH_EMBEDDED_ENGINE: 'false', SEARCH_SENTENCE_ENCODER: 'false' });
    try {
      const api = (await createPartner(t)).http;
      // Five courses name both words outside their descriptions: the subject's courses ("calculus") follow them.
      const query = { query: 'calculas for enginers', limit: 10 };
      const plain = await api.post('/api/search', query);
      expect(plain.status).toBe(200);
      const rank = Object.getOwnPropertyDescriptor(LexicalSearch.prototype, 'rank')!.value as LexicalSearch['rank'];
      const asked: Array<{ concepts: number; firstAnswered: boolean }> = [];
      let firstAnswered = false;
      let subjectAsked!: () => void;
      const subject = new Promise<void>((resolve) => (subjectAsked = resolve));
      // The first ranking is held until the subject's is asked (3 s at most): asked only after it, the order shows.
      const spy = jest.spyOn(LexicalSearch.prototype, 'rank').mockImplementation(async function (this: LexicalSearch, ...args: Parameters<typeof rank>) {
        asked.push({ concepts: args[0].length, firstAnswered });
        if (args[0].length === 1) subjectAsked();
        const page = await rank.apply(this, args);
        if (args[0].length > 1) {
          await Promise.race([subject, new Promise((r) => setTimeout(r, 3000))]);
          firstAnswered = true;
        }
        return page;
      });
      try {
        const res = await api.post('/api/search', query);
        expect(res.status).toBe(200);
        expect(asked).toEqual([
          { concepts: 2, firstAnswered: false },
          { concepts: 1, firstAnswered: false },
        ]);
        expect((res.body as { data: unknown }).data).toEqual((plain.body as { data: unknown }).data);
      } finally {
        spy.mockRestore();
      }
    } finally {
      await t.close();
    }
  });
});
