import { ScratchCatalogue, createScratchCatalogue } from '../../tools/search-eval/scratch-catalogue';
import { sql } from '../../src/common/database';
import { allCourseTexts } from '../../src/search/encoder/course-texts';
import { SENTENCE_MODEL } from '../../src/search/encoder/sentence-model';
import { SearchEncoderProcessor } from '../../src/search/search-encoder.processor';
import { SearchService } from '../../src/search/search.service';
import { EncoderPool } from '../../src/search/encoder/encoder-pool';
import { LexicalSearch } from '../../src/search/lexical-search.store';
import { HttpClient } from '../support/http';
import { createAdmin, createPartner } from '../support/factories';
import { startApp, TestApp } from '../support/app';

// A learner's question (tuning half) and the course that answers it: no word of the question is in its title.
const QUESTION = "what is going on in my puppy's head";
const ANSWER = 'coursera:learn/dog-emotion-and-cognition';

// A slice of the real catalogue, so that the file encodes ~90 courses once instead of 1,967 (minutes of CPU): the
// answer and every 25th course, from every subject.
let scratch: ScratchCatalogue;
let t: TestApp;
let admin: HttpClient;
let partner: HttpClient;
// The word-vector engine is off: this file is about the encoder, and its import would compete for the two cores.
const ENCODER_ON = { SEARCH_SENTENCE_ENCODER: 'true', SEARCH_ENCODER_THREADS: '2', SEARCH_EMBEDDED_ENGINE: 'false' };

async function indexStatus(http: HttpClient) {
  const res = await http.get('/api/admin/search/index');
  expect(res.status).toBe(200);
  return res.body.data as { courses: number; embedded: number; pending: number; model: string };
}

async function untilEncoded(http: HttpClient, timeoutMs = 240_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const status = await indexStatus(http);
    if (status.pending === 0) return status;
    if (Date.now() > until) throw new Error(`still pending after ${timeoutMs} ms: ${JSON.stringify(status)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

beforeAll(async () => {
  scratch = await createScratchCatalogue('search_encoder', { wordVectors: false, template: process.env.PA_TEST_TEMPLATE_URL });
  await scratch.db.query(`DELETE FROM courses WHERE source_key <> $1 AND id % 25 <> 0`, [ANSWER]);
  t = await startApp({ DATABASE_URL: scratch.url, ...ENCODER_ON });
  admin = (await createAdmin(t)).http;
  partner = (await createPartner(t)).http;
}, 300_000);
afterAll(async () => {
  await t?.close();
  await scratch?.drop();
});

describe('the sentence encoder in search, on a slice of the real catalogue', () => {
  it('GET /api/admin/search/index reports progress until every course has its vector', async () => {
    const status = await untilEncoded(admin);
    expect(status.courses).toBeGreaterThan(50);
    expect(status).toEqual({ courses: status.courses, embedded: status.courses, pending: 0, model: SENTENCE_MODEL });
    // sentence vectors: one row per distinct course text (each course's lead and title) of the current model.
    const texts = new Set<string>();
    for await (const page of allCourseTexts(t.db)) for (const c of page) for (const h of c.hashes) texts.add(h);
    expect(texts.size).toBeGreaterThan(status.courses);
    const [{ n }] = await sql<{ n: number }>(t.db, `SELECT count(*)::int AS n FROM search_sentence_vectors WHERE model = $1`, [SENTENCE_MODEL]);
    expect(n).toBe(texts.size);
  }, 300_000);

  it('is for admins only', async () => {
    const res = await partner.get('/api/admin/search/index');
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('admin_only');
  });

  it('finds the course for a question that shares no word with its title, through the encoder', async () => {
    const encoder = t.app.get(SearchService).encoder!;
    await encoder.refresh();
    const [answer] = await sql<{ id: number; title: string }>(t.db, `SELECT id, title FROM courses WHERE source_key = $1`, [ANSWER]);
    const titleWords = new Set(answer.title.toLowerCase().split(/\W+/));
    expect(
      QUESTION.toLowerCase()
        .split(/\W+/)
        .filter((w) => titleWords.has(w)),
    ).toEqual([]);

    const alone = (await encoder.rank(QUESTION, 5)) ?? [];
    expect(alone.map((h) => h.id)).toContain(answer.id);

    const res = await partner.post('/api/search', { query: QUESTION, limit: 5 });
    expect(res.status).toBe(200);
    expect(res.body.data.engine).toBe('semantic');
    expect(res.body.data.results.map((r: { id: number }) => r.id)).toContain(answer.id);
  });

  it('encodes a query once, started before the statement about its category words', async () => {
    const encoder = t.app.get(SearchService).encoder!;
    await encoder.refresh();
    encoder.clearCache();
    // "design" is a category; with "experience" before it the search asks whether courses outside it say both.
    const query = 'user experience design';
    const encode = jest.spyOn((encoder as unknown as { queries: EncoderPool }).queries, 'encode');
    const phrases = jest.spyOn(LexicalSearch.prototype, 'phrasesOutsideCategory');
    try {
      const res = await partner.post('/api/search', { query, limit: 5 });
      expect(res.status).toBe(200);
      expect(res.body.data.engine).toBe('semantic');
      expect(encode.mock.calls).toEqual([[[query]]]);
      expect(phrases).toHaveBeenCalledTimes(1);
      expect(encode.mock.invocationCallOrder[0]).toBeLessThan(phrases.mock.invocationCallOrder[0]);
    } finally {
      encode.mockRestore();
      phrases.mockRestore();
    }
  });

  it('recomputes nothing after a restart', async () => {
    const before = await sql<{ text_hash: string; created_at: Date }>(t.db, `SELECT text_hash, created_at FROM search_sentence_vectors ORDER BY text_hash`);
    await t.close();
    t = await startApp({ DATABASE_URL: scratch.url, ...ENCODER_ON });
    admin = (await createAdmin(t)).http;
    partner = (await createPartner(t)).http;
    // The restarted app enqueued its run on start; a run now finds nothing to encode either way.
    expect(await t.app.get(SearchEncoderProcessor).run()).toEqual({ encoded: 0 });
    expect(await indexStatus(admin)).toMatchObject({ pending: 0 });
    const after = await sql<{ text_hash: string; created_at: Date }>(t.db, `SELECT text_hash, created_at FROM search_sentence_vectors ORDER BY text_hash`);
    expect(after).toEqual(before);
  }, 120_000);

  it('gives a course changed through the admin API a new vector, and drops the old one', async () => {
    const textsOfCourse = async (id: number) => {
      for await (const page of allCourseTexts(t.db)) {
        const found = page.find((c) => c.id === id);
        if (found) return found;
      }
      throw new Error(`course ${id} not found`);
    };
    const [{ id }] = await sql<{ id: number }>(t.db, `SELECT id FROM courses WHERE source_key <> $1 ORDER BY id LIMIT 1`, [ANSWER]);
    const before = await textsOfCourse(id);
    const res = await admin.patch(`/api/admin/courses/${id}`, { description: 'How volcanoes erupt, and how scientists tell when one is about to.' });
    expect(res.status).toBe(200);
    const after = await textsOfCourse(id);
    expect(after.hashes).not.toEqual(before.hashes);
    // The title did not change: its text keeps its vector; the lead's old one goes.
    const gone = before.hashes.filter((h) => !after.hashes.includes(h));
    expect(gone).toHaveLength(1);

    // The change notification enqueues a run; it stores the new text's vector, then prunes the old one.
    const until = Date.now() + 60_000;
    let hashes: string[] = [];
    while (Date.now() < until) {
      hashes = (await sql<{ text_hash: string }>(t.db, `SELECT text_hash FROM search_sentence_vectors`)).map((r) => r.text_hash);
      if (after.hashes.every((h) => hashes.includes(h)) && !gone.some((h) => hashes.includes(h))) break;
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(hashes).toEqual(expect.arrayContaining(after.hashes));
    for (const h of gone) expect(hashes).not.toContain(h);
    expect(await indexStatus(admin)).toMatchObject({ pending: 0 });
  }, 90_000);
});
