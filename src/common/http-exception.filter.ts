import { ArgumentsHost, Catch, ExceptionFilter, Logger, NotFoundException } from '@nestjs/common';
import type { Request, Response } from 'express';
import { allowedMethods } from './allowed-methods';
import { renderError } from './error-response';
import { DomainError } from './errors';
import { assignRequestId, requestIdOf } from './request-id';

/** Told the code of every error response (metrics counts them); defined here so common depends on no feature. */
export interface ErrorResponseCounter {
  countErrorResponse(code: string): void;
}

/** The single place where anything thrown becomes the error envelope. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(private readonly counter?: ErrorResponseCounter) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request>();
    const res = ctx.getResponse<Response>();
    // Requests no logger saw (unknown paths, probes) get their id here too, so every error carries one.
    const rendered = renderError(noRouteFor(exception, req), res.headersSent ? requestIdOf(req) : assignRequestId(req, res));
    this.counter?.countErrorResponse(rendered.body.error.code);
    if (rendered.unexpected) {
      this.logger.error({ err: exception, request_id: rendered.body.error.request_id }, 'Unhandled error');
    } else if (rendered.body.error.code === 'service_unavailable' && exception instanceof Error && !(exception instanceof DomainError)) {
      // Which dependency failed, and how (a refused connection, a timeout), for the operator.
      this.logger.warn({ err: exception.message.slice(0, 300), request_id: rendered.body.error.request_id }, 'Dependency unavailable');
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    for (const [k, v] of Object.entries(rendered.headers)) res.setHeader(k, v);
    res.status(rendered.status).json(rendered.body);
  }
}

/**
 * Nest's not-found handler throws `Cannot METHOD /path` when no route matched. When the path exists for other
 * methods the answer is 405 `method_not_allowed` with `Allow`, as HTTP requires, otherwise 404 `route_not_found`.
 */
function noRouteFor(exception: unknown, req: Request): unknown {
  if (!(exception instanceof NotFoundException) || !exception.message.startsWith('Cannot ')) return exception;
  const allow = allowedMethods(req);
  if (allow.length === 0) return new DomainError('route_not_found');
  return new DomainError('method_not_allowed', { allow }, undefined, { Allow: allow.join(', ') });
}
