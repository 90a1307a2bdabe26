/**
 * How long a sentence-vector reload holds the event loop at 20,000 courses (or --rows N), split into its steps:
 * decoding the vectors as PostgreSQL hands them (bytea hex text, then fromBytes), and building the float32 rows (the
 * unit sum per course; the int8 copy is written by the query encoder's thread, in slices). "base": buildMatrix, the rows
 * in one synchronous step (the build before the slices); "sliced": buildMatrixInSlices, the same rows with the event
 * loop let go every ~8 ms. Interleaved rounds; a 1-ms interval probe runs across each reload (the build, the matrix
 * posted to the thread and the thread's copy): its longest gap is the longest the event loop was held.
 * Last, 40 queries scanned by the thread from the moment a sliced matrix is posted (the first while it writes the copy)
 * are compared with this thread's scan of the one-step matrix, quantised here.
 *
 *   node -r ./scripts/swc-register.js bench/sentence-reload.ts [--rows 20000] [--rounds 5]
 */
import { performance } from 'node:perf_hooks';
import { EncoderPool } from '../src/search/encoder/encoder-pool';
import { fromBytes, SENTENCE_DIMENSIONS, toBytes, unit } from '../src/search/encoder/sentence-model';
import type { CourseTexts } from '../src/search/encoder/course-texts';
import { buildMatrix, buildMatrixInSlices } from '../src/search/encoder/sentence-index';
import { PackedHits, ScanOptions, scanMatrix, SentenceMatrix, shareMatrix, unpackHits } from '../src/search/encoder/sentence-scan';
import { median, probed } from './event-loop-probe';

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

/** The matrix as SentenceIndex builds it: in one step (base) or in slices; its total time. */
async function build(vectors: Map<string, Float32Array>, spare: SentenceMatrix | null, sliced: boolean) {
  const t1 = performance.now();
  const matrix = sliced ? await buildMatrixInSlices(courses, vectors, spare) : buildMatrix(courses, vectors, spare);
  return { matrix, total: performance.now() - t1 };
}

async function main() {
  let current: SentenceMatrix | null = null;
  let generation = 0;
  const pool = new EncoderPool(1, { nice: 0, chunk: 1, unref: true, init: () => (current ? { matrix: shareMatrix(current, generation) } : undefined) });
  const scan = (vector: Float32Array) => pool.request<{ hits: PackedHits; generation: number }>({ vector, scan: OPTIONS });
  type Figures = { decode: number[]; chunk: number[]; build: number[]; block: number[] };
  const figures: Record<'base' | 'sliced', Figures> = {
    base: { decode: [], chunk: [], build: [], block: [] },
    sliced: { decode: [], chunk: [], build: [], block: [] },
  };
  await scan(unit(Float32Array.from({ length: D }, next)));
  let spare: SentenceMatrix | null = null;
  for (let round = 0; round < ROUNDS; round++) {
    for (const variant of round % 2 ? (['sliced', 'base'] as const) : (['base', 'sliced'] as const)) {
      const { vectors, decode: decoded, chunk } = decode();
      const { result: built, block } = await probed(async () => {
        const step = await build(vectors, spare, variant === 'sliced');
        const previous: SentenceMatrix | null = current;
        current = step.matrix;
        generation++;
        await pool.request({ matrix: shareMatrix(step.matrix, generation) });
        spare = previous;
        // Let the thread's slices run, with scans in between, before the next reload.
        for (let i = 0; i < 5; i++) await scan(unit(Float32Array.from({ length: D }, next)));
        await new Promise((r) => setTimeout(r, 400));
        return step.total;
      });
      const f = figures[variant];
      f.decode.push(decoded);
      f.chunk.push(chunk);
      f.build.push(built);
      f.block.push(block);
    }
  }
  for (const [variant, f] of Object.entries(figures))
    console.log(
      `${variant}: per reload (median of ${ROUNDS}): decoding ${ROWS * 2} vectors ${median(f.decode).toFixed(0)} ms ` +
        `(2,000 of them ${median(f.chunk).toFixed(0)} ms); build ${median(f.build).toFixed(1)} ms in total; ` +
        `longest event-loop block during the build and the thread's copy ${median(f.block).toFixed(1)} ms (${f.block.map((b) => b.toFixed(0)).join(', ')})`,
    );
  // Hits right after a reload (float32 scan while the copy is written) and later (int8 first pass): this thread's.
  const { vectors } = decode();
  const step = await build(vectors, spare, true);
  // The matrix built in one step and quantised on this thread, scanned here.
  const here = (await build(vectors, null, false)).matrix;
  here.rows.quantize();
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
  console.log(`thread's scan of the sliced matrix vs this thread's of the one-step one: ${differ} of ${total} queries differ`);
  await pool.close();
}

void main();
