/**
 * How long a sentence-vector reload holds the event loop at 20,000 courses (or --rows N), split into its steps:
 * decoding the vectors as PostgreSQL hands them (bytea hex text, then fromBytes), filling the float32 rows (the unit
 * sum per course), and the int8 copy. "before": the build as it was (a new array per row, the copy on the event
 * loop); "after": SentenceIndex's buildMatrix, the rows posted to the query encoder's thread, which writes the copy in
 * slices. Interleaved rounds; the event loop's delay (monitorEventLoopDelay, max) is measured across each reload.
 * Last, 40 queries scanned by the thread from the moment a new matrix is posted (the first while it writes the copy)
 * are compared with this thread's scan of the matrix built and quantised the way it was before.
 *
 *   node -r ./scripts/swc-register.js bench/sentence-reload.ts [--rows 20000] [--rounds 5]
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { EncoderPool } from '../src/search/encoder/encoder-pool';
import { fromBytes, SENTENCE_DIMENSIONS, toBytes, unit } from '../src/search/encoder/sentence-model';
import type { CourseTexts } from '../src/search/encoder/course-texts';
import { buildMatrix } from '../src/search/encoder/sentence-index';
import { DotKernel } from '../src/search/semantic/dot-kernel';
import { FEEDBACK_POOL, PackedHits, ScanOptions, scanMatrix, SentenceMatrix, shareMatrix, unpackHits } from '../src/search/encoder/sentence-scan';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const ROWS = arg('rows', 20_000);
const ROUNDS = arg('rounds', 5);
const D = SENTENCE_DIMENSIONS;
const OPTIONS: ScanOptions = { max: 300, floor: -1, feedbackDocs: 5, feedbackWeight: 1 };

let seed = 1;
const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed / 2 ** 30 - 1);
// Two texts a course (title and description), as the catalogue's courses have.
const hex = Array.from({ length: ROWS * 2 }, () => '\\x' + toBytes(unit(Float32Array.from({ length: D }, next))).toString('hex'));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// Two texts a course ('lead' and 'title'), as ENCODER.texts.
const courses: CourseTexts[] = Array.from({ length: ROWS }, (_, r) => ({
  id: r + 1,
  texts: ['', ''],
  hashes: [`${r}a`, `${r}b`],
  weights: [1, 0.5],
}));

/**
 * What store.load() does with each row PostgreSQL sends (the driver's bytea hex, then fromBytes), for every vector: a
 * first load (a later reload reads only the vectors it does not hold yet), in statements of 2,000 with awaits between.
 */
function decode() {
  const t0 = performance.now();
  const vectors = new Map<string, Float32Array>();
  let chunk = 0;
  for (let i = 0; i < hex.length; i++) {
    vectors.set(courses[i >> 1].hashes[i & 1], fromBytes(Buffer.from(hex[i].slice(2), 'hex')));
    if (i === 1999) chunk = performance.now() - t0;
  }
  return { vectors, decode: performance.now() - t0, chunk };
}

/** The build before: a new array per row and per unit(), then the int8 copy (quantize()), all on the event loop. */
function buildBefore(vectors: Map<string, Float32Array>, spare: SentenceMatrix | null): SentenceMatrix {
  const kept = courses.filter((c) => c.hashes.some((h) => vectors.has(h)));
  const rows = DotKernel.create(kept.length, true, D, true, kept.length > 4 * FEEDBACK_POOL, {
    capacity: Math.ceil(courses.length * 1.1),
    spare: spare?.rows,
  });
  kept.forEach((c, r) => {
    const sum = new Float32Array(D);
    c.hashes.forEach((h, t) => {
      const v = vectors.get(h);
      const w = c.weights[t];
      if (v) for (let i = 0; i < D; i++) sum[i] += w * v[i];
    });
    rows.matrix.set(unit(sum), r * D);
  });
  return { ids: Int32Array.from(kept.map((c) => c.id)), rows };
}

/** SentenceIndex's one synchronous block per reload: the float32 rows, and before this change their int8 copy. */
function build(vectors: Map<string, Float32Array>, spare: SentenceMatrix | null, before: boolean) {
  const t1 = performance.now();
  const matrix = before ? buildBefore(vectors, spare) : buildMatrix(courses, vectors, spare);
  const t2 = performance.now();
  if (before) matrix.rows.quantize();
  const t3 = performance.now();
  return { matrix, fill: t2 - t1, quantize: t3 - t2 };
}

async function main() {
  let current: SentenceMatrix | null = null;
  let generation = 0;
  const pool = new EncoderPool(1, { nice: 0, chunk: 1, unref: true, init: () => (current ? { matrix: shareMatrix(current, generation) } : undefined) });
  const scan = (vector: Float32Array) => pool.request<{ hits: PackedHits; generation: number }>({ vector, scan: OPTIONS });
  const figures: Record<'before' | 'after', { decode: number[]; chunk: number[]; fill: number[]; quantize: number[]; maxDelay: number[] }> = {
    before: { decode: [], chunk: [], fill: [], quantize: [], maxDelay: [] },
    after: { decode: [], chunk: [], fill: [], quantize: [], maxDelay: [] },
  };
  await scan(unit(Float32Array.from({ length: D }, next)));
  let spare: SentenceMatrix | null = null;
  for (let round = 0; round < ROUNDS; round++) {
    for (const variant of round % 2 ? (['after', 'before'] as const) : (['before', 'after'] as const)) {
      const { vectors, decode: decoded, chunk } = decode();
      const h = monitorEventLoopDelay({ resolution: 5 });
      h.enable();
      await new Promise((r) => setTimeout(r, 20));
      const step: { matrix: SentenceMatrix; fill: number; quantize: number; decode: number; chunk: number } = {
        ...build(vectors, spare, variant === 'before'),
        decode: decoded,
        chunk,
      };
      const previous: SentenceMatrix | null = current;
      current = step.matrix;
      generation++;
      await pool.request({ matrix: shareMatrix(step.matrix, generation) });
      spare = previous;
      // Let the thread's slices run, with scans in between, before the next reload.
      for (let i = 0; i < 5; i++) await scan(unit(Float32Array.from({ length: D }, next)));
      await new Promise((r) => setTimeout(r, 400));
      h.disable();
      const f = figures[variant];
      f.decode.push(step.decode);
      f.chunk.push(step.chunk);
      f.fill.push(step.fill);
      f.quantize.push(step.quantize);
      f.maxDelay.push(h.max / 1e6);
    }
  }
  for (const [variant, f] of Object.entries(figures))
    console.log(
      `${variant}: event loop per reload (median of ${ROUNDS}): decoding ${ROWS * 2} vectors ${median(f.decode).toFixed(0)} ms ` +
        `(2,000 of them ${median(f.chunk).toFixed(0)} ms); build: fill ${median(f.fill).toFixed(0)} ms + int8 ${median(f.quantize).toFixed(0)} ms; ` +
        `max event-loop delay during the build and the thread's copy ${median(f.maxDelay).toFixed(0)} ms`,
    );
  // Hits right after a reload (float32 scan while the copy is written) and later (int8 first pass): this thread's.
  const { vectors } = decode();
  const step = build(vectors, spare, false);
  // The matrix as the event loop built and quantised it before this change, scanned here.
  const here = build(vectors, null, true).matrix;
  current = step.matrix;
  generation++;
  await pool.request({ matrix: shareMatrix(step.matrix, generation) });
  let differ = 0;
  let total = 0;
  for (let q = 0; q < 40; q++) {
    const query = unit(Float32Array.from({ length: D }, next));
    const got = unpackHits((await scan(query)).hits);
    const want = scanMatrix(here, query, OPTIONS);
    total++;
    if (got.length !== want.length || got.some((h, i) => h.id !== want[i].id || !Object.is(h.score, want[i].score) || !Object.is(h.cosine, want[i].cosine)))
      differ++;
  }
  console.log(`thread vs this thread's scan after a reload: ${differ} of ${total} queries differ`);
  await pool.close();
}

void main();
