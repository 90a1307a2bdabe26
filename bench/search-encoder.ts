/**
 * The sentence encoder's cost per course text: `npm run bench:search-encoder` (options: `--texts N`, default 192;
 * `--rounds N`, default 3).
 *
 * Reads the course texts of the real catalogue from a scratch database (dropped at the end), takes N of them at
 * random (a fixed seed), and encodes them in one thread the ways the background job could send them, alternated
 * round by round: calls of 32 texts as they come (the job before issue 28's cost work), sorted by length in calls of
 * ENCODE_CHUNK, and the same with the attention heads split into XNNPACK products (what the job does now). It prints
 * the CPU time per text (this process's, one thread: less moved by a shared machine's load than wall time) and the
 * wall time per text, medians over the rounds, and the load average.
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createScratchCatalogue } from '../tools/search-eval/scratch-catalogue';

const arg = (name: string, fallback: number) => Number(process.argv[process.argv.indexOf(name) + 1]) || fallback;
const count = arg('--texts', 192);
const rounds = arg('--rounds', 3);
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

async function main(): Promise<void> {
  const load = loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
  const scratch = await createScratchCatalogue('search_encoder_bench', { wordVectors: false });
  const texts: string[] = [];
  try {
    const { allCourseTexts } = await import('../src/search/encoder/course-texts');
    for await (const page of allCourseTexts(scratch.db)) for (const c of page) texts.push(...c.texts);
  } finally {
    await scratch.drop();
  }
  const { loadSentenceModel, splitAttentionHeads } = await import('../src/search/encoder/sentence-model');
  const { ENCODE_CHUNK } = await import('../src/search/encoder/encoder-pool');
  const model = await loadSentenceModel();
  let x = 7;
  const random = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const sample = texts
    .map((t) => ({ t, r: random() }))
    .sort((a, b) => a.r - b.r)
    .slice(0, count)
    .map((e) => e.t);
  const sorted = [...sample].sort((a, b) => a.length - b.length);
  const inCalls = async (list: string[], size: number) => {
    for (let i = 0; i < list.length; i += size) await model.encode(list.slice(i, i + size));
  };
  const variants: Array<[string, () => Promise<void>]> = [
    ['calls of 32 texts as they come', () => (splitAttentionHeads(false), inCalls(sample, 32))],
    [`sorted by length, calls of ${ENCODE_CHUNK}`, () => (splitAttentionHeads(false), inCalls(sorted, ENCODE_CHUNK))],
    [`sorted, calls of ${ENCODE_CHUNK}, attention heads split`, () => (splitAttentionHeads(true), inCalls(sorted, ENCODE_CHUNK))],
  ];
  await inCalls(sample.slice(0, 16), 8);
  const cpu = new Map<string, number[]>();
  const wall = new Map<string, number[]>();
  for (let r = 0; r < rounds; r++) {
    for (const [name, run] of variants) {
      const [c, t] = [cpuMs(), performance.now()];
      await run();
      cpu.set(name, [...(cpu.get(name) ?? []), (cpuMs() - c) / sample.length]);
      wall.set(name, [...(wall.get(name) ?? []), (performance.now() - t) / sample.length]);
    }
  }
  splitAttentionHeads(true);
  process.stdout.write(`\n${sample.length} random course texts of ${texts.length}, ${rounds} rounds, load average ${load} at the start\n\n`);
  process.stdout.write('| how the texts are sent | CPU ms per text | wall ms per text |\n|---|---|---|\n');
  for (const [name] of variants) process.stdout.write(`| ${name} | ${median(cpu.get(name)!).toFixed(1)} | ${median(wall.get(name)!).toFixed(1)} |\n`);
  process.stdout.write(
    `\nThe demo catalogue at the last row's cost: about ${((median(cpu.get(variants[2][0])!) * texts.length) / 1000).toFixed(0)} s of CPU.\n`,
  );
}

main().catch((e) => {
  process.stderr.write(`encoder bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
