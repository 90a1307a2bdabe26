import { randomBytes, randomInt } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Uniformly random characters from an alphabet, from the CSPRNG (rejection sampling, no modulo bias). */
export function randomChars(length: number, alphabet = BASE62): string {
  const out: string[] = [];
  const limit = 256 - (256 % alphabet.length);
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit) out.push(alphabet[byte % alphabet.length]);
      if (out.length === length) break;
    }
  }
  return out.join('');
}

export type IdPrefix = 'wbn' | 'whk' | 'whd' | 'evt' | 'key' | 'txn' | 'par' | 'req' | 'att';

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
