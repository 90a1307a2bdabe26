import express, { NextFunction, Request, Response } from 'express';
import { DomainError } from './errors';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const parser = express.json({ limit: '100kb', strict: true, type: 'application/json' });

function hasBody(req: Request): boolean {
  const len = req.headers['content-length'];
  if (len !== undefined) return Number(len) > 0;
  return req.headers['transfer-encoding'] !== undefined;
}

/**
 * Contract section 1 for request bodies, in one middleware with a fast path for reads: a body must be
 * `application/json` (415), at most 100 kB (413), valid JSON (400 invalid_json) and a JSON object.
 * Errors are thrown inside Nest's middleware proxy, so the global filter renders them in the envelope.
 */
export async function jsonBody(req: Request, res: Response, next: NextFunction): Promise<void> {
  if (!BODY_METHODS.has(req.method)) return next();
  if (hasBody(req)) {
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/json') throw new DomainError('unsupported_media_type');
    await new Promise<void>((resolve, reject) => parser(req, res, (err?: unknown) => (err ? reject(err) : resolve())));
    if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
      throw new DomainError('validation_failed', [{ field: 'body', message: 'body must be a JSON object' }]);
    }
  }
  if (req.body === undefined) req.body = {};
  next();
}
