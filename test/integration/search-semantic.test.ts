import { createHash, randomBytes } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { embedPendingCourses } from '../../src/search/embedding-indexer';
import { EmbeddingsClient } from '../../src/search/embeddings.client';
import { HttpClient } from '../support/http';
import { createCourse, createPartner } from '../support/factories';
import { startApp, TestApp } from '../support/app';

type Mode = 'ok' | 'slow' | 'error' | 'malformed' | 'wide' | 'huge';

/** A local OpenAI-compatible /v1/embeddings endpoint with deterministic vectors: hashed bag of words, 64 dimensions. */
class FakeModel {
  mode: Mode = 'ok';
  readonly requests: Array<{ model: string; inputs: string[]; auth?: string }> = [];
  hugeBytesSent = 0;
  private server: Server;

  static vector(text: string): number[] {
    const v = new Array(64).fill(0);
    for (const w of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) v[createHash('md5').update(w).digest()[0] % 64] += 1;
    return v;
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const body = JSON.parse(raw) as { model: string; input: string[] };
        this.requests.push({ model: body.model, inputs: body.input, auth: req.headers.authorization });
        const send = (status: number, payload: string) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(payload);
        if (this.mode === 'error') return send(503, JSON.stringify({ error: { message: 'overloaded' } }));
        if (this.mode === 'malformed') return send(200, JSON.stringify({ data: [{ embedding: 'nope' }] }));
        if (this.mode === 'wide') {
          return send(200, JSON.stringify({ data: body.input.map((_, index) => ({ index, embedding: Array.from({ length: 3000 }, (_, k) => (k % 7) / 7) })) }));
        }
        if (this.mode === 'huge') {
          // A well-formed answer carrying 40 MB of padding: the client must stop reading long before the end.
          this.hugeBytesSent = 0;
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.write('{"padding":"');
          const chunk = 'x'.repeat(1 << 20);
          const more = () => {
            while (this.hugeBytesSent < 40 << 20 && !res.destroyed) {
              this.hugeBytesSent += chunk.length;
              if (!res.write(chunk)) return void res.once('drain', more);
            }
            if (!res.destroyed) res.end(`","data":${JSON.stringify(body.input.map((t, index) => ({ index, embedding: FakeModel.vector(t) })))}}`);
          };
          res.on('error', () => undefined);
          return more();
        }
        const answer = JSON.stringify({
          object: 'list',
          model: body.model,
          data: body.input.map((t, index) => ({ object: 'embedding', index, embedding: FakeModel.vector(t) })),
        });
        if (this.mode === 'slow') setTimeout(() => !res.destroyed && send(200, answer), 4000).unref();
        else send(200, answer);
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

const word = () =>
  `zq${randomBytes(6)
    .toString('hex')
    .replace(/\d/g, (d) => 'abcdefghij'[Number(d)])}`;

let t: TestApp;
let api: HttpClient;
let model: FakeModel;
let url: string;
beforeAll(async () => {
  model = new FakeModel();
  url = await model.start();
  // The hosted model alone (the embedded engine is tested on the real catalogue): `engine` says whether it answered.
  t = await startApp({
    SEARCH_EMBEDDINGS_URL: url,
    SEARCH_EMBEDDINGS_MODEL: 'fake-embed-1',
    SEARCH_EMBEDDINGS_API_KEY: 'sk-test',
    SEARCH_EMBEDDED_ENGINE: 'false',
  });
  api = (await createPartner(t)).http;
});
afterAll(async () => {
  await t.close();
  await model.stop();
});
beforeEach(() => (model.mode = 'ok'));

async function embedded(courseId: number): Promise<boolean> {
  const [row] = await t.db.query(`SELECT embedding IS NOT NULL AND embedded_hash = content_hash AS done FROM search_documents WHERE course_id = $1`, [
    courseId,
  ]);
  return Boolean(row?.done);
}

describe('search with a hosted embeddings model', () => {
  it('embeds courses in the background and fuses semantic and lexical ranks', async () => {
    const w = word();
    const { course } = await createCourse(t.db, { title: `Orchard pruning ${w}`, description: 'Fruit trees through the seasons.' });
    await embedPendingCourses(t.db, new EmbeddingsClient({ url, model: 'fake-embed-1' }));
    expect(await embedded(course.id)).toBe(true);
    // The stored vectors reach the search in the background (checked every 2 s), never in a search's way.
    let res = await api.post('/api/search', { query: `orchard pruning ${w}` });
    for (let i = 0; i < 40 && (res.body.data.results[0]?.id !== course.id || res.body.data.engine !== 'semantic'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      res = await api.post('/api/search', { query: `orchard pruning ${w}` });
    }
    expect(res.status).toBe(200);
    expect(res.body.data.engine).toBe('semantic');
    expect(res.body.data.results[0].id).toBe(course.id);
    expect(model.requests.some((r) => r.auth === 'Bearer sk-test' && r.model === 'fake-embed-1')).toBe(true);
  });

  it('the worker embeds a new course after a catalogue change notification', async () => {
    const { course } = await createCourse(t.db, { title: `Beekeeping ${word()}` });
    const { CatalogueCache } = await import('../../src/courses/catalogue-cache');
    await t.app.get(CatalogueCache).invalidate();
    for (let i = 0; i < 50 && !(await embedded(course.id)); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await embedded(course.id)).toBe(true);
  });

  it('sends courses in batches of the configured size, and re-embeds only changed ones', async () => {
    const w = word();
    for (let i = 0; i < 5; i++) await createCourse(t.db, { title: `Batch ${w} ${i}` });
    const client = new EmbeddingsClient({ url: `${url}/v1`, model: 'fake-embed-2' });
    const before = model.requests.length;
    const stored = await embedPendingCourses(t.db, client, 2);
    const sent = model.requests.slice(before);
    expect(stored).toBeGreaterThanOrEqual(5);
    expect(sent.every((r) => r.inputs.length <= 2 && r.model === 'fake-embed-2')).toBe(true);
    const after = model.requests.length;
    expect(await embedPendingCourses(t.db, client, 2)).toBe(0);
    expect(model.requests.length).toBe(after);
  });

  it.each([
    ['slow', 'does not answer within the time limit'],
    ['error', 'answers 503'],
    ['malformed', 'answers malformed JSON'],
  ] as const)('falls back to lexical within 1.5 s when the model is %s (%s)', async (mode, _) => {
    const w = word();
    const { course } = await createCourse(t.db, { title: `Falconry ${w}` });
    model.mode = mode;
    const started = Date.now();
    const res = await api.post('/api/search', { query: `falconry ${w} ${mode}` });
    expect(Date.now() - started).toBeLessThan(1500);
    expect(res.status).toBe(200);
    expect(res.body.data.engine).toBe('lexical');
    expect(res.body.data.results[0].id).toBe(course.id);
  });

  it('the embedding job fails (for BullMQ to retry) when the model keeps failing', async () => {
    await createCourse(t.db, { title: `Retry ${word()}` });
    model.mode = 'error';
    await expect(embedPendingCourses(t.db, new EmbeddingsClient({ url, model: 'fake-embed-3' }))).rejects.toThrow(/503/);
  });

  it('refuses vectors wider than 2,048 dimensions: the job fails and nothing is stored', async () => {
    const { course } = await createCourse(t.db, { title: `Wide ${word()}` });
    model.mode = 'wide';
    await expect(embedPendingCourses(t.db, new EmbeddingsClient({ url, model: 'fake-embed-wide' }))).rejects.toThrow(/dimensions/);
    const [row] = await t.db.query(`SELECT count(*)::int AS n FROM search_documents WHERE embedding_model = 'fake-embed-wide'`);
    expect(row.n).toBe(0);
    expect(await embedded(course.id)).toBe(false);
  });

  it('stops reading an answer larger than its bound', async () => {
    model.mode = 'huge';
    const started = Date.now();
    await expect(new EmbeddingsClient({ url, model: 'fake-embed-1' }).embed(['one query'], 10_000)).rejects.toThrow(/too large/);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(model.hugeBytesSent).toBeLessThan(40 << 20);
  });

  it('a search with a model answering oversized bodies falls back to lexical within 1.5 s', async () => {
    const w = word();
    const { course } = await createCourse(t.db, { title: `Topiary ${w}` });
    model.mode = 'huge';
    const started = Date.now();
    const res = await api.post('/api/search', { query: `topiary ${w} huge` });
    expect(Date.now() - started).toBeLessThan(1500);
    expect(res.body.data.engine).toBe('lexical');
    expect(res.body.data.results[0].id).toBe(course.id);
  });
});
