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

/**
 * Checks the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`) against the raw body,
 * in constant time, and refuses a timestamp more than `toleranceSec` away from now (a replayed request). Any of the
 * space-separated `v1,<base64>` signatures may match (two during a secret rotation). Self-contained, like
 * verifySignature; a Standard Webhooks library does the same given `whsec_` + base64(secret).
 */
export function verifyStandardSignature(
  rawBody: Buffer | string,
  headers: { id?: string; timestamp?: string; signature?: string },
  secret: string,
  toleranceSec = 300,
  nowSec = Math.floor(Date.now() / 1000),
): boolean {
  const { id, timestamp, signature } = headers;
  if (!id || !signature || !timestamp || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(nowSec - Number(timestamp)) > toleranceSec) return false;
  const expected = createHmac('sha256', secret).update(`${id}.${timestamp}.`).update(rawBody).digest();
  return signature.split(' ').some((part) => {
    const [version, value] = part.split(',');
    if (version !== 'v1' || !value || !/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return false;
    const received = Buffer.from(value, 'base64');
    return received.length === expected.length && timingSafeEqual(received, expected);
  });
}
