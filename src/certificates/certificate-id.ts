import { crockford } from '../common/ids';
import type { Mode } from '../common/scope';

const SHAPE = /^(TST|ECK)-(\d{4})-([0-9A-HJKMNP-TV-Z]{10})$/;

/** `<TST|ECK>-<year>-<10 random Crockford base32 chars>` (50 bits of randomness: not enumerable). */
export function newCertificateId(mode: Mode, issuedOn: Date): string {
  return `${mode === 'live' ? 'ECK' : 'TST'}-${issuedOn.getUTCFullYear()}-${crockford(10)}`;
}

/** The mode a well-formed certificate id belongs to, by its prefix. */
export function certificateMode(id: string): Mode {
  return id.startsWith('ECK-') ? 'live' : 'test';
}

/**
 * The canonical form of a certificate id typed or read by a person (Crockford decoding: case-insensitive,
 * I and L read as 1, O as 0), or null when it cannot be a certificate id at all.
 */
export function normalizeCertificateId(raw: string): string | null {
  if (raw.length > 40) return null;
  const upper = raw.trim().toUpperCase();
  const parts = upper.split('-');
  if (parts.length !== 3) return null;
  const serial = parts[2].replace(/[IL]/g, '1').replace(/O/g, '0');
  const id = `${parts[0]}-${parts[1]}-${serial}`;
  return SHAPE.test(id) ? id : null;
}
