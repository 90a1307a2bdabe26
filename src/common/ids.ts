import { randomFillSync, randomInt } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

// CSPRNG bytes drawn 4 kB at a time: one call into OpenSSL per ~90 ids instead of one per id.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++];
}

/** Uniformly random characters from an alphabet, from the CSPRNG (rejection sampling, no modulo bias). */
export function randomChars(length: number, alphabet = BASE62): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < limit) out += alphabet[byte % alphabet.length];
  }
  return out;
}

export type IdPrefix = 'wbn' | 'whk' | 'whd' | 'evt' | 'key' | 'txn' | 'par' | 'req' | 'att' | 'job';

/** Random, non-guessable string id such as `evt_3kT9…` (22 base62 chars ≈ 131 bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomChars(22)}`;
}

export function crockford(length: number): string {
  return randomChars(length, CROCKFORD);
}

export function base62Encode(n: number, width: number): string {
  let s = '';
  let v = n >>> 0;
  for (let i = 0; i < width; i++) {
    s = BASE62[v % 62] + s;
    v = Math.floor(v / 62);
  }
  return s;
}

export { BASE62, CROCKFORD, randomInt };
