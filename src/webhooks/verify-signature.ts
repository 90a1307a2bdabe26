import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Checks an `X-SVC-Signature: sha256=<hex>` header against the raw request body, in constant time.
 * Self-contained so partners can copy it: pass the body exactly as received (before any JSON parsing).
 */
export function verifySignature(rawBody: Buffer | string, header: string | undefined, secret: string): boolean {
  if (typeof header !== 'string' || !header.startsWith('sha256=')) return false;
  const received = header.slice('sha256='.length).trim();
  if (!/^[0-9a-fA-F]{64}$/.test(received)) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(received, 'hex'));
}
