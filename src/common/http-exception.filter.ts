import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { renderError } from './error-response';
import { requestIdOf } from './request-id';

/** The single place where anything thrown becomes the contract's error envelope. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request>();
    const res = ctx.getResponse<Response>();
    const rendered = renderError(exception, requestIdOf(req));
    if (rendered.unexpected) {
      this.logger.error({ err: exception, request_id: rendered.body.error.request_id }, 'Unhandled error');
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    for (const [k, v] of Object.entries(rendered.headers)) res.setHeader(k, v);
    res.status(rendered.status).json(rendered.body);
  }
}
