import type { IncomingMessage, ServerResponse } from 'node:http';
import { Params } from 'nestjs-pino';
import { AppConfig } from './config/config';
import { assignRequestId } from './common/request-id';

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

/** Structured JSON logs with the request id on every line; keys, secrets and tokens never logged. */
export function loggerParams(config: AppConfig, stream?: NodeJS.WritableStream): Params {
  const options = {
    level: config.logLevel,
    // The last step before a line is written, so no field, message or nesting can carry a key past it.
    hooks: { streamWrite: maskApiKeys },
    genReqId: (req: IncomingMessage, res: ServerResponse) => assignRequestId(req, res),
    customProps: (req: IncomingMessage) => ({ request_id: (req as { id?: string }).id }),
    redact: {
      paths: [
        'req.headers["x-api-key"]',
        'req.headers.authorization',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        '*.api_key',
        '*.secret',
        '*.key',
      ],
      censor: '[REDACTED]',
    },
    serializers: {
      req: (req: { id?: string; method?: string; url?: string; headers?: Record<string, unknown>; remoteAddress?: string }) => ({
        id: req.id,
        method: req.method,
        url: maskUrl(req.url),
        remoteAddress: req.remoteAddress,
        origin: req.headers?.origin,
        userAgent: req.headers?.['user-agent'],
      }),
    },
    customLogLevel: (_req: IncomingMessage, res: ServerResponse, err?: Error) =>
      err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
    autoLogging: { ignore: (req: IncomingMessage) => req.url === '/health/live' },
  };
  return { pinoHttp: stream ? [options, stream] : options } as Params;
}
