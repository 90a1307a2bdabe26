import { DynamicModule, Global, LoggerService, Module } from '@nestjs/common';
import pino, { Logger as PinoLogger, LoggerOptions } from 'pino';
import type { FinishedRequestObserver } from './common/request-lifecycle';
import { requestContext } from './common/request-context';
import { requestIdOf } from './common/request-id';
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
  if (stream) return pino(options, stream as pino.DestinationStream);
  // Standard output, written in batches: one write(2) per 4 kB of lines instead of one per line (a request's line
  // cost the catalogue more in the system call than in pino), flushed at least every 250 ms and on exit. One writer
  // per process, however many apps it builds (tests build dozens): each would flush (an fsync) every 250 ms forever.
  stdoutDestination ??= pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 250 });
  return pino(options, stdoutDestination);
}

let stdoutDestination: ReturnType<typeof pino.destination> | undefined;

/**
 * The one line per request (warn for 4xx, error for 5xx), written when the response has been written; an observer
 * of `requestLifecycle`, which keeps the request id in AsyncLocalStorage. The line's fields are fixed and carry no
 * secret (the URL is masked here, keys anywhere by the stream hook), so it skips the root logger's path redaction,
 * which otherwise walks every request's object.
 */
export function requestLogLine(logger: PinoLogger): FinishedRequestObserver {
  const lines = logger.child({}, { redact: [] });
  return (req, res, elapsedMs) => {
    if (req.url === '/health/live') return;
    const status = res.statusCode;
    const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
    if (!lines.isLevelEnabled(level)) return;
    lines[level](
      {
        request_id: requestIdOf(req),
        req: {
          method: req.method,
          url: maskUrl(req.originalUrl),
          remoteAddress: req.socket.remoteAddress,
          origin: req.headers.origin,
          userAgent: req.headers['user-agent'],
        },
        res: { statusCode: status },
        responseTime: Math.round(elapsedMs),
      },
      'request completed',
    );
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
