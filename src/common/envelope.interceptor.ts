import { CallHandler, ExecutionContext, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { map, Observable } from 'rxjs';
import { success } from './envelope';
import { SerializedBody } from './serialized-body';

export const RAW_RESPONSE = 'raw_response';
/** The handler's return value is sent as is (certificate verification, files, pages, health). */
export const RawResponse = () => SetMetadata(RAW_RESPONSE, true);

@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const raw = this.reflector.getAllAndOverride<boolean>(RAW_RESPONSE, [context.getHandler(), context.getClass()]);
    if (raw) return next.handle();
    return next
      .handle()
      .pipe(
        map((data) =>
          data instanceof SerializedBody
            ? sendSerialized(context.switchToHttp().getRequest<Request>(), context.switchToHttp().getResponse<Response>(), data)
            : success(data),
        ),
      );
  }
}

/** Already an envelope's bytes: sent as a string with its ETag, or as 304 when If-None-Match names that ETag. */
function sendSerialized(req: Request, res: Response, body: SerializedBody): string {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('ETag', body.etag);
  // Express's res.send answers 304 when the request is fresh. Its own check calls a request with Cache-Control:
  // no-cache stale, and fetch() adds that to every request carrying If-None-Match; a matching validator is 304
  // at the origin whatever Cache-Control says (RFC 9110, 13.1.2), so the match is decided here.
  if (matchesEtag(req.headers['if-none-match'], body.etag)) Object.defineProperty(req, 'fresh', { value: true });
  return body.json;
}

/** If-None-Match: `*` or a list of entity tags, compared weakly (a W/ prefix is ignored). */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}
