import { hash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { base62Encode, randomChars } from '../common/ids';
import type { Mode } from '../common/scope';

/**
 * API key format: `eck_test_` or `eck_live_`, 32 random base62 characters from the
 * CSPRNG, then 6 base62 characters of the CRC32 of everything before them. The checksum lets us refuse
 * typos and garbage before touching PostgreSQL or Redis.
 */
const KEY_PATTERN = /^eck_(test|live)_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/;

export interface ParsedKey {
  mode: Mode;
  hash: string;
}

function checksum(body: string): string {
  return base62Encode(crc32(body), 6);
}

export function generateApiKey(mode: Mode): { key: string; hash: string; prefix: string } {
  const body = `eck_${mode}_${randomChars(32)}`;
  const key = body + checksum(body);
  return { key, hash: hashApiKey(key), prefix: key.slice(0, 14) };
}

/** Every key is this long. */
export const API_KEY_LENGTH = 47;

/** Returns null for anything not shaped like a key or whose checksum does not match. */
export function parseApiKey(raw: string | undefined): ParsedKey | null {
  if (!raw || raw.length !== API_KEY_LENGTH) return null;
  const m = KEY_PATTERN.exec(raw);
  if (!m) return null;
  // The checksum only catches typos: it is computed from the rest of the key, so comparing it leaks nothing.
  if (checksum(raw.slice(0, 41)) !== m[3]) return null;
  return { mode: m[1] as Mode, hash: hashApiKey(raw) };
}

export function hashApiKey(key: string): string {
  // One-shot: no Hash object per keyed request.
  return hash('sha256', key, 'hex');
}
