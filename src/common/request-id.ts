import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

const VALID = /^[A-Za-z0-9._-]{1,128}$/;

/** Echoes a well-formed incoming X-Request-Id, otherwise generates one; sets the response header. */
export function assignRequestId(req: IncomingMessage, res: ServerResponse): string {
  const existing = (req as { id?: unknown }).id;
  if (typeof existing === 'string') return existing;
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && VALID.test(incoming) ? incoming : `req_${randomUUID().replace(/-/g, '')}`;
  (req as { id?: string }).id = id;
  res.setHeader('X-Request-Id', id);
  return id;
}

export function requestIdOf(req: IncomingMessage): string {
  const id = (req as { id?: unknown }).id;
  return typeof id === 'string' ? id : 'unknown';
}
