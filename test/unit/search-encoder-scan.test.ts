import { TimeSlices } from '../../src/common/time-slices';
import type { CourseTexts } from '../../src/search/encoder/course-texts';
import { EncoderPool } from '../../src/search/encoder/encoder-pool';
import { buildMatrix, buildMatrixInSlices } from '../../src/search/encoder/sentence-index';
import { SENTENCE_DIMENSIONS, unit } from '../../src/search/encoder/sentence-model';
import { FEEDBACK_POOL, PackedHits, ScanOptions, scanMatrix, SentenceMatrix, shareMatrix, unpackHits } from '../../src/search/encoder/sentence-scan';
import { DotKernel } from '../../src/search/semantic/dot-kernel';

const D = SENTENCE_DIMENSIONS;
// Above four times the feedback pool, so that the first pass is the int8 one (dotsOfBest), as at 20,000 courses.
const ROWS = 4 * FEEDBACK_POOL + 301;
const OPTIONS: ScanOptions = { max: 300, floor: -1, feedbackDocs: 5, feedbackWeight: 1 };

/** Unit rows around a few centres (many close products, some exact ties: rows 0–9 repeat rows 10–19), seeded. */
function rowsOf(seed: number): Float32Array[] {
  let x = seed;
  const next = () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 30 - 1;
  };
  const centres = Array.from({ length: 8 }, () => Float32Array.from({ length: D }, next));
  const rows = Array.from({ length: ROWS }, (_, r) => unit(centres[r % 8].map((c) => c + 0.6 * next())));
  for (let r = 0; r < 10; r++) rows[r] = rows[r + 10];
  return rows;
}

/** A matrix as SentenceIndex builds one at this size: float32 rows, their int8 copy, course ids from `firstId`. */
function matrixOf(rows: Float32Array[], firstId: number, spare?: SentenceMatrix, quantize = true): SentenceMatrix {
  const kernel = DotKernel.create(rows.length, true, D, true, true, { capacity: rows.length + 100, spare: spare?.rows });
  rows.forEach((v, r) => kernel.matrix.set(v, r * D));
  if (quantize) kernel.quantize();
  return { ids: Int32Array.from(rows, (_, r) => firstId + r), rows: kernel };
}

const queryOf = (rows: Float32Array[], r: number) => unit(rows[r].map((v, i) => v + 0.3 * Math.sin(i * (r + 1))));

/** The thread's hits are the in-process scan's, in order and bit for bit. */
function expectSameHits(packed: PackedHits, want: ReturnType<typeof scanMatrix>): void {
  const got = unpackHits(packed);
  expect(got.map((h) => h.id)).toEqual(want.map((h) => h.id));
  got.forEach((h, i) => {
    expect(Object.is(h.score, want[i].score)).toBe(true);
    expect(Object.is(h.cosine, want[i].cosine)).toBe(true);
  });
}

describe("the sentence scan on the query encoder's thread", () => {
  const first = rowsOf(7);
  const second = rowsOf(11);
  // Each matrix twice: one handed to the thread, one scanned here (a shared matrix is scanned by one thread only).
  const sharedFirst = matrixOf(first, 1);
  const sharedSecond = matrixOf(second, 100_001);
  const hereFirst = matrixOf(first, 1);
  const hereSecond = matrixOf(second, 100_001);
  const third = rowsOf(13);
  // As SentenceIndex builds it: the float32 rows only, the int8 copy left to the thread.
  const sharedThird = matrixOf(third, 200_001, undefined, false);
  const hereThird = matrixOf(third, 200_001);
  let current = shareMatrix(sharedFirst, 1);
  const pool = new EncoderPool(1, { nice: 0, chunk: 1, unref: true, init: () => ({ matrix: current }) });
  const scan = (vector: Float32Array) => pool.request<{ hits: PackedHits; generation: number }>({ vector, scan: OPTIONS });

  afterAll(() => pool.close());

  it('shares the rows, not a copy of them', () => {
    expect(sharedFirst.rows.matrix.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(current.rows.memory?.buffer).toBeInstanceOf(SharedArrayBuffer);
    // What is posted is the memory itself (a structured clone of it shares the buffer): no array of rows goes along.
    expect(Object.values(current.rows).some((v) => v instanceof Float32Array)).toBe(false);
  });

  it('gives the hits of the scan on this thread, bit for bit, with the matrix handed over when the thread started', async () => {
    expect(sharedFirst.rows.simd).toBe(true);
    for (const r of [0, 10, 123, ROWS - 1]) {
      const query = queryOf(first, r);
      const reply = await scan(query);
      const want = scanMatrix(hereFirst, query, OPTIONS);
      expect(want).toHaveLength(OPTIONS.max);
      expect(reply.generation).toBe(1);
      expectSameHits(reply.hits, want);
    }
  }, 30_000);

  it('scans the new matrix once a reload posts it, and leaves the old one as it was', async () => {
    const before = Float32Array.from(sharedFirst.rows.matrix);
    current = shareMatrix(sharedSecond, 2);
    // Answered once the thread reads the new matrix.
    await pool.request({ matrix: current });
    const query = queryOf(second, 42);
    const reply = await scan(query);
    expect(reply.generation).toBe(2);
    const got = unpackHits(reply.hits);
    expect(got).toEqual(scanMatrix(hereSecond, query, OPTIONS));
    expect(got.every((h) => h.id > 100_000)).toBe(true);
    expect(sharedFirst.rows.matrix.every((v, i) => Object.is(v, before[i]))).toBe(true);
  }, 30_000);

  it('writes the int8 copy of a matrix the event loop posts without it, with the same hits before and after', async () => {
    expect(sharedThird.rows.unquantized).toBe(true);
    const queries = [3, 77, 4000].map((r) => queryOf(third, r));
    current = shareMatrix(sharedThird, 3);
    const reload = pool.request({ matrix: current });
    // Asked at once: answered from the float32 rows or the int8 copy, whichever the thread has, the same hits.
    const early = await Promise.all(queries.map(scan));
    await reload;
    for (let i = 0; i < 50 && sharedThird.rows.unquantized; i++) await new Promise((r) => setTimeout(r, 20));
    expect(sharedThird.rows.unquantized).toBe(false);
    const late = await Promise.all(queries.map(scan));
    queries.forEach((query, q) => {
      const want = scanMatrix(hereThird, query, OPTIONS);
      expect(want).toHaveLength(OPTIONS.max);
      for (const reply of [early[q], late[q]]) {
        expect(reply.generation).toBe(3);
        expectSameHits(reply.hits, want);
      }
    });
  }, 30_000);

  it('hands the current matrix to a thread started again', async () => {
    await pool.close();
    const query = queryOf(third, 7);
    const reply = await scan(query);
    expect(reply.generation).toBe(3);
    expect(unpackHits(reply.hits)).toEqual(scanMatrix(hereThird, query, OPTIONS));
  }, 30_000);
});

describe('a reload into a released matrix', () => {
  it("writes into the spare's memory when it fits, and scans as a matrix in new memory does", () => {
    const old = matrixOf(rowsOf(3), 1);
    const rows = rowsOf(5).slice(0, ROWS - 40);
    const reused = matrixOf(rows, 1, old);
    const fresh = matrixOf(rows, 1);
    expect(reused.rows.share().memory).toBe(old.rows.share().memory);
    expect(fresh.rows.share().memory).not.toBe(old.rows.share().memory);
    for (const r of [0, 99]) {
      const query = queryOf(rows, r);
      expect(scanMatrix(reused, query, OPTIONS)).toEqual(scanMatrix(fresh, query, OPTIONS));
    }
  });

  it('takes new memory when the spare is too small', () => {
    const small = matrixOf(rowsOf(3).slice(0, 50), 1);
    const grown = matrixOf(rowsOf(3), 1, small);
    expect(grown.rows.share().memory).not.toBe(small.rows.share().memory);
  });
});

describe('the matrix built in slices', () => {
  /** Courses of two texts (weights 1 and 0.5), most with both vectors, some with one, some with none yet. */
  function catalogue(seed: number, courses: number) {
    let x = seed;
    const next = () => ((x = (x * 1103515245 + 12345) % 2 ** 31), x / 2 ** 30 - 1);
    const texts: CourseTexts[] = Array.from({ length: courses }, (_, r) => ({ id: 5 + 3 * r, texts: ['', ''], hashes: [`${r}a`, `${r}b`], weights: [1, 0.5] }));
    const random = () => {
      const v = new Float32Array(D);
      for (let i = 0; i < D; i++) v[i] = next();
      return unit(v);
    };
    const vectors = new Map<string, Float32Array>();
    texts.forEach((c, r) => {
      if (r % 11 !== 3) vectors.set(c.hashes[0], random());
      if (r % 7 !== 2) vectors.set(c.hashes[1], random());
    });
    return { texts, vectors };
  }
  /** How many of the two matrices' floats differ, compared as bits (a loop: jest's toEqual takes seconds on 2M). */
  const differing = (a: SentenceMatrix, b: SentenceMatrix) => {
    const bits = (m: SentenceMatrix) => new Uint32Array(m.rows.matrix.buffer, m.rows.matrix.byteOffset, m.ids.length * D);
    const [x, y] = [bits(a), bits(b)];
    let n = Math.abs(x.length - y.length);
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) n++;
    return n;
  };

  it('writes the same floats, bit for bit, and the same ids as the build in one step, into a spare too', async () => {
    // Above four times the feedback pool (room for the int8 copy, as at 20,000 courses) and many chunks of rows.
    const { texts, vectors } = catalogue(17, ROWS);
    const whole = buildMatrix(texts, vectors, null);
    let yields = 0;
    const ticker = setInterval(() => yields++, 0);
    // A zero budget yields after every chunk of rows.
    const sliced = await buildMatrixInSlices(texts, vectors, null, new TimeSlices(0));
    clearInterval(ticker);
    expect(yields).toBeGreaterThan(0);
    expect(sliced.ids).toEqual(whole.ids);
    expect(sliced.rows.rows).toBe(whole.rows.rows);
    // Courses 58, 135, … have no vector yet: no row.
    expect(sliced.ids.length).toBe(ROWS - Array.from({ length: ROWS }, (_, r) => r).filter((r) => r % 77 === 58).length);
    expect(differing(sliced, whole)).toBe(0);
    // Into a released matrix's memory (what was there before is overwritten), after a catalogue change.
    const changed = catalogue(19, ROWS - 40);
    const reused = await buildMatrixInSlices(changed.texts, changed.vectors, sliced, new TimeSlices(0));
    expect(reused.rows.share().memory).toBe(sliced.rows.share().memory);
    const fresh = buildMatrix(changed.texts, changed.vectors, null);
    expect(reused.ids).toEqual(fresh.ids);
    // The same ids and floats, so every scan (the int8 copy is written from the floats) is the same.
    expect(differing(reused, fresh)).toBe(0);
  });
});
