import { randomFillSync } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

const VALID = /^[A-Za-z0-9._-]{1,128}$/;

/** 16 random bytes per id, drawn from a pool filled from the CSPRNG 256 ids at a time. */
const ID_BYTES = 16;
const pool = Buffer.alloc(ID_BYTES * 256);
let offset = pool.length;

/**
 * `req_` and 32 lowercase hex digits of fresh randomness: one slice of a pooled buffer as hex, where a UUID with its
 * dashes removed costs a UUID string, its flattening and a regular expression on every request.
 */
function newRequestId(): string {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const id = `req_${pool.toString('hex', offset, offset + ID_BYTES)}`;
  offset += ID_BYTES;
  return id;
}

/** Echoes a well-formed incoming X-Request-Id, otherwise generates one; sets the response header. */
export function assignRequestId(req: IncomingMessage, res: ServerResponse): string {
  const existing = (req as { id?: unknown }).id;
  if (typeof existing === 'string') return existing;
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && VALID.test(incoming) ? incoming : newRequestId();
  (req as { id?: string }).id = id;
  res.setHeader('X-Request-Id', id);
  return id;
}

export function requestIdOf(req: IncomingMessage): string {
  const id = (req as { id?: unknown }).id;
  return typeof id === 'string' ? id : 'unknown';
}
