import type { ExceptionFilter } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/internal';
import express, { NextFunction, Request, Response } from 'express';
import { DomainError } from './errors';
import { isSignallingPath, sdpParser, SDP_TYPE, SDPFRAG_TYPE } from './sdp-body';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
// strict: false parses any JSON value, so `null`, `3` or `[]` are a well-formed body of the wrong shape (400
// validation_failed below), not "not valid JSON".
const parser = express.json({ limit: '100kb', strict: false, type: 'application/json' });
// POST /api/enroll/bulk: 1,000 rows with the longest ids are about 200 kB of JSON.
const LARGE_BODY_LIMIT = '512kb';
const largeParser = express.json({ limit: LARGE_BODY_LIMIT, strict: false, type: 'application/json' });
const LARGE_BODY_PATHS = new Set(['/api/enroll/bulk']);
// The partner dashboard's HTML forms post urlencoded bodies (each checked there for a same-origin CSRF token).
const formParser = express.urlencoded({ extended: false, limit: '100kb', parameterLimit: 100 });
const FORM_PATHS = /^\/dashboard(\/|$|\?)/;

function parserFor(req: Request): { parse: typeof parser; large: boolean } {
  const path = req.originalUrl.split('?')[0].replace(/\/+$/, '');
  return LARGE_BODY_PATHS.has(path) ? { parse: largeParser, large: true } : { parse: parser, large: false };
}

function hasBody(req: Request): boolean {
  const len = req.headers['content-length'];
  if (len !== undefined) return Number(len) > 0;
  return req.headers['transfer-encoding'] !== undefined;
}

const MAX_DEPTH = 32;
// JSON may escape half of a surrogate pair ("\ud800"); PostgreSQL jsonb (the events outbox) refuses it.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * What no field of any DTO accepts, checked once for the whole body without recursion: nesting deeper than
 * MAX_DEPTH (class-transformer and the idempotency fingerprint recurse and would overflow the stack), NUL
 * characters in keys or strings (PostgreSQL text cannot store them) and lone surrogates in strings.
 */
function hostileShape(body: object): { field: string; message: string } | null {
  const stack: Array<[unknown, string, number]> = [[body, '', 0]];
  while (stack.length) {
    const [value, path, depth] = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return { field: path || 'body', message: `${path || 'body'} must not contain NUL characters` };
      if (LONE_SURROGATE.test(value)) return { field: path || 'body', message: `${path || 'body'} must be valid Unicode (no lone surrogates)` };
    } else if (value !== null && typeof value === 'object') {
      if (depth >= MAX_DEPTH) return { field: path || 'body', message: `body must not be nested more than ${MAX_DEPTH} levels deep` };
      for (const [k, v] of Object.entries(value)) {
        const field = path ? `${path}.${k}` : k;
        if (k.includes('\u0000')) return { field: 'body', message: 'field names must not contain NUL characters' };
        stack.push([v, field, depth + 1]);
      }
    }
  }
  return null;
}

async function sdpBody(req: Request, res: Response, next: NextFunction, type: string): Promise<void> {
  if (type !== SDP_TYPE && type !== SDPFRAG_TYPE) {
    throw new DomainError('unsupported_media_type', undefined, 'WHIP and WHEP requests must be sent as Content-Type: application/sdp.');
  }
  await new Promise<void>((resolve, reject) => sdpParser(req, res, (err?: Error) => (err ? reject(err) : resolve())));
  next();
}

/**
 * The request-body rules, in one middleware with a fast path for reads: a body must be
 * `application/json` (415), at most 100 kB (512 kB for bulk enrolment) (413), valid JSON (400 invalid_json) and a JSON object.
 * Mounted by jsonBodyMiddleware, which renders what it throws in the envelope.
 */
export async function jsonBody(req: Request, res: Response, next: NextFunction): Promise<void> {
  if (!BODY_METHODS.has(req.method)) return next();
  if (hasBody(req)) {
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (isSignallingPath(req)) return sdpBody(req, res, next, type);
    if (type === 'application/x-www-form-urlencoded' && FORM_PATHS.test(req.originalUrl)) {
      await new Promise<void>((resolve, reject) => formParser(req, res, (err?: Error) => (err ? reject(err) : resolve())));
      return next();
    }
    if (type !== 'application/json') throw new DomainError('unsupported_media_type');
    const { parse, large } = parserFor(req);
    await new Promise<void>((resolve, reject) =>
      // body-parser reports failures as http-errors: Errors with a `type` such as 'entity.too.large'.
      parse(req, res, (err?: Error & { type?: string }) => {
        if (!err) return resolve();
        const tooLarge = large && err.type === 'entity.too.large';
        reject(tooLarge ? new DomainError('payload_too_large', undefined, 'The request body is larger than 512 kB.') : err);
      }),
    );
    const body: unknown = req.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new DomainError('validation_failed', [{ field: 'body', message: 'body must be a JSON object' }]);
    }
    const problem = hostileShape(body);
    if (problem) throw new DomainError('validation_failed', [problem]);
  }
  if (req.body === undefined) req.body = {};
  next();
}

/**
 * jsonBody as one Express layer before the routes, its refusals rendered by `filter` (the global one) the way Nest
 * renders a middleware's errors. Nest's `forRoutes('*')` would mount it once per path the global prefix's exclusions
 * produce: about fifty layers, each matched against every request's path.
 */
export function jsonBodyMiddleware(filter: ExceptionFilter) {
  return (req: Request, res: Response, next: NextFunction): void => {
    // Reads skip the async function: its promises (and their async hooks, for the request context) cost every GET.
    if (!BODY_METHODS.has(req.method)) return next();
    jsonBody(req, res, next).catch((err: unknown) => {
      filter.catch(err, new ExecutionContextHost([req, res, next]));
    });
  };
}
