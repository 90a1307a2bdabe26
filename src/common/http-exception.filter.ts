import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { renderError } from './error-response';
import { DomainError } from './errors';
import { requestIdOf } from './request-id';
import { MetricsService } from '../metrics/metrics.service';

/** The single place where anything thrown becomes the contract's error envelope. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(private readonly metrics?: MetricsService) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request>();
    const res = ctx.getResponse<Response>();
    const rendered = renderError(exception, requestIdOf(req));
    this.metrics?.apiErrors.inc({ code: rendered.body.error.code });
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
