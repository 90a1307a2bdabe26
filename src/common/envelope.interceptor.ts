import { CallHandler, ExecutionContext, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
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
    return next.handle().pipe(map((data) => (data instanceof SerializedBody ? sendSerialized(context.switchToHttp().getResponse<Response>(), data) : success(data))));
  }
}

/** Already an envelope's bytes: sent as a string with its ETag; Express turns a fresh If-None-Match into 304. */
function sendSerialized(res: Response, body: SerializedBody): string {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('ETag', body.etag);
  return body.json;
}
