import type { NextFunction, Request, Response } from 'express';
import { DomainError } from './errors';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

function hasBody(req: Request): boolean {
  const len = req.headers['content-length'];
  if (len !== undefined) return Number(len) > 0;
  return req.headers['transfer-encoding'] !== undefined;
}

/** Thrown errors reach the global exception filter through Nest's middleware proxy. */

/** Contract section 1: a request with a body must be JSON (415 otherwise); runs before the JSON parser. */
export function requireJsonContentType(req: Request, _res: Response, next: NextFunction): void {
  if (BODY_METHODS.has(req.method) && hasBody(req)) {
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/json') throw new DomainError('unsupported_media_type');
  }
  next();
}

/** Runs after the JSON parser: the body of a request must be a JSON object, not an array or a scalar. */
export function requireObjectBody(req: Request, _res: Response, next: NextFunction): void {
  if (BODY_METHODS.has(req.method) && hasBody(req) && (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body))) {
    throw new DomainError('validation_failed', [{ field: 'body', message: 'body must be a JSON object' }]);
  }
  if (req.body === undefined) req.body = {};
  next();
}
