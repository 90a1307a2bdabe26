import { applyDecorators, CallHandler, ExecutionContext, NestInterceptor, SetMetadata, UseInterceptors } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Observable } from 'rxjs';
import { success } from './envelope';
import { SerializedBody } from './serialized-body';

export const RAW_RESPONSE = 'raw_response';

const SENT_AS_IS = Symbol('sentAsIs');

/** Marks a response whose body is sent as the handler returned it, outside the success envelope. */
export function sendAsIs(res: Response): void {
  (res as Response & { [SENT_AS_IS]?: true })[SENT_AS_IS] = true;
}

function isSentAsIs(res: Response): boolean {
  return (res as Response & { [SENT_AS_IS]?: true })[SENT_AS_IS] === true;
}

/** Marks the responses of a @RawResponse route before its handler runs. */
class RawResponseMarker implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() === 'http') sendAsIs(context.switchToHttp().getResponse<Response>());
    return next.handle();
  }
}

const rawResponseMarker = new RawResponseMarker();

/** The handler's return value is sent as is (certificate verification, files, pages, health). */
export const RawResponse = () => applyDecorators(SetMetadata(RAW_RESPONSE, true), UseInterceptors(rawResponseMarker));

/**
 * What a handler's return value is sent as: the success envelope, unless the route is @RawResponse (or the body is
 * a stored response replayed whole). The adapter applies it to every reply, so routes need no interceptor for it: a
 * route without interceptors skips Nest's RxJS chain, a large share of a cached catalogue read's CPU.
 */
export function envelopeOf(req: Request, res: Response, body: unknown): unknown {
  if (isSentAsIs(res)) return body;
  return body instanceof SerializedBody ? sendSerialized(req, res, body) : success(body);
}

/** The body as the client receives it for a handler's return value: what an idempotent replay sends again. */
export function sentBodyOf(res: Response, body: unknown): unknown {
  if (isSentAsIs(res)) return body;
  return body instanceof SerializedBody ? body.json : success(body);
}

/** Already an envelope's bytes: sent as they are with their ETag, or as 304 when If-None-Match names that ETag. */
function sendSerialized(req: Request, res: Response, body: SerializedBody): Buffer {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('ETag', body.etag);
  // Express's res.send answers 304 when the request is fresh. Its own check calls a request with Cache-Control:
  // no-cache stale, and fetch() adds that to every request carrying If-None-Match; a matching validator is 304
  // at the origin whatever Cache-Control says (RFC 9110, 13.1.2), so the match is decided here.
  if (matchesEtag(req.headers['if-none-match'], body.etag)) Object.defineProperty(req, 'fresh', { value: true });
  return body.bytes;
}

/** If-None-Match: `*` or a list of entity tags, compared weakly (a W/ prefix is ignored). */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}
