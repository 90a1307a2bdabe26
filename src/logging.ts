import { DynamicModule, Global, LoggerService, Module } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import pino, { Logger as PinoLogger, LoggerOptions } from 'pino';
import { assignRequestId } from './common/request-id';
import { requestContext } from './common/request-context';
import { AppConfig } from './config/config';

/** Query parameters that carry secrets (webinar host/attendee tokens) are masked in logged URLs. */
const SECRET_QUERY = /([?&](?:t|a|token)=)[^&#]*/g;

export function maskUrl(url: string | undefined): string | undefined {
  return url?.replace(SECRET_QUERY, '$1[REDACTED]');
}

/** Anything shaped like one of our API keys, of any length; the display prefix (first 14 characters) is kept. */
const API_KEY_SHAPE = /eck_(test|live)_([0-9A-Za-z]{0,5})[0-9A-Za-z]*/g;

/** Masks API keys wherever they appear in a serialised log line: URLs, headers, bodies, error messages. */
export function maskApiKeys(line: string): string {
  return line.includes('eck_') ? line.replace(API_KEY_SHAPE, 'eck_$1_$2[REDACTED]') : line;
}

/**
 * The process's structured JSON logger. Every line written while a request is served carries its `request_id`
 * (from AsyncLocalStorage, whichever logger wrote it); keys, secrets and tokens are never logged.
 */
export function createRootLogger(config: Pick<AppConfig, 'logLevel'>, stream?: NodeJS.WritableStream): PinoLogger {
  const options: LoggerOptions = {
    level: config.logLevel,
    // The last step before a line is written, so no field, message or nesting can carry a key past it.
    hooks: { streamWrite: maskApiKeys },
    mixin: () => {
      const context = requestContext.getStore();
      return context ? { request_id: context.requestId } : {};
    },
    redact: { paths: ['*.api_key', '*.secret', '*.key', '*.authorization', '*.cookie'], censor: '[REDACTED]' },
  };
  return stream ? pino(options, stream as pino.DestinationStream) : pino(options);
}

/**
 * One line per request, written when the response finishes (warn for 4xx, error for 5xx), and the request's id
 * kept in AsyncLocalStorage for everything that runs on its behalf. Mounted before every other middleware.
 */
export function requestLogging(logger: PinoLogger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const requestId = assignRequestId(req, res);
    if (req.url === '/health/live') return requestContext.run({ requestId }, next);
    const started = performance.now();
    res.once('finish', () => {
      const status = res.statusCode;
      const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        {
          request_id: requestId,
          req: { method: req.method, url: maskUrl(req.originalUrl), remoteAddress: req.socket.remoteAddress, origin: req.headers.origin, userAgent: req.headers['user-agent'] },
          res: { statusCode: status },
          responseTime: Math.round(performance.now() - started),
        },
        'request completed',
      );
    });
    requestContext.run({ requestId }, next);
  };
}

/** Nest's LoggerService over the root logger: `log(obj?, message?, …, context?)` as Nest's Logger calls it. */
export class AppLogger implements LoggerService {
  constructor(readonly pino: PinoLogger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: pino.Level, message: unknown, params: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    // Nest appends the logger's context (its class name) as the last argument.
    const fields: Record<string, unknown> = params.length ? { context: params[params.length - 1] } : {};
    const rest = params.slice(0, -1);
    if (message instanceof Error) {
      fields.err = message;
      this.pino[level](fields, ...((rest.length ? rest : [message.message]) as [string]));
    } else if (typeof message === 'object' && message !== null) {
      this.pino[level]({ ...fields, ...message }, ...(rest as [string]));
    } else if (level === 'error' && rest.length === 1 && typeof rest[0] === 'string' && rest[0].includes('\n')) {
      // error(message, stack, context), as Nest's exception handlers call it.
      this.pino.error({ ...fields, err: { message: String(message), stack: rest[0] } }, String(message));
    } else {
      this.pino[level](fields, String(message), ...(rest as []));
    }
  }
}

/** Provides the process's AppLogger to every module (Nest's own Logger delegates to it via app.useLogger). */
@Global()
@Module({})
export class LoggingModule {
  static forRoot(config: Pick<AppConfig, 'logLevel'>, stream?: NodeJS.WritableStream): DynamicModule {
    return { module: LoggingModule, providers: [{ provide: AppLogger, useValue: new AppLogger(createRootLogger(config, stream)) }], exports: [AppLogger] };
  }
}
