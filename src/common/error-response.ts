import { HttpException } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { capDetails, DomainError, ERROR_CODES, ErrorCode } from './errors';
import { ErrorBody } from './envelope';

export interface RenderedError {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
  /** True when the cause was not one we expected (to be logged with its stack). */
  unexpected: boolean;
}

const STATUS_TO_CODE: Record<number, ErrorCode> = {
  400: 'validation_failed',
  401: 'invalid_api_key',
  403: 'admin_only',
  404: 'route_not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'service_unavailable',
};

// Matched by kind, not by one class name: drivers and TypeORM releases name the same event differently.
// Socket-level failures of the connection to PostgreSQL or Redis.
const DEPENDENCY_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
// SQLSTATE classes 08 (connection exception) and 57 (operator intervention: 57014 statement cancelled by
// statement_timeout, 57P01 admin shutdown or pg_terminate_backend, 57P02 crash shutdown, 57P03 cannot connect now),
// and 53300 (too many connections).
const DEPENDENCY_SQLSTATE = /^(08[0-9A-Z]{3}|57[0-9A-Z]{3}|53300)$/;
// What pg, pg-pool, TypeORM and ioredis say when the server is away, stuck or too slow: connection lost or refused,
// a pool or connect timeout, pg's query read timeout, ioredis's command timeout, a released connection.
const DEPENDENCY_MESSAGES =
  /Connection terminated|server closed the connection|connect ECONNREFUSED|timeout exceeded when trying to connect|Connection is closed|Stream isn't writeable|Reached the max retries per request limit|Redis is unavailable|getaddrinfo|Query read timeout|Command timed out|Client has encountered a connection error|already released|terminating connection/i;
// Error classes whose name says the connection is gone or never came: TypeORM's QueryRunnerAlreadyReleasedError and
// 1.1's QueryRunnerProviderAlreadyReleasedError (a statement after the connection broke under a transaction), ioredis's
// MaxRetriesPerRequestError, and our own DependencyUnavailableError.
const DEPENDENCY_ERROR_NAME = /AlreadyReleased|NotConnected|DependencyUnavailable|MaxRetriesPerRequest/;

/** Failures and timeouts of PostgreSQL or Redis: answered 503, never 500, since a retry can succeed. */
export function isDependencyDown(err: unknown): boolean {
  // Wrapped errors (TypeORM's driverError, an Error's cause) are looked through, a few levels deep.
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 4; depth++) {
    const { code, message, name, driverError, cause } = e as { code?: unknown; message?: unknown; name?: unknown; driverError?: unknown; cause?: unknown };
    if (typeof code === 'string' && (DEPENDENCY_ERRNOS.has(code) || DEPENDENCY_SQLSTATE.test(code))) return true;
    if (typeof name === 'string' && DEPENDENCY_ERROR_NAME.test(name)) return true;
    if (typeof message === 'string' && DEPENDENCY_MESSAGES.test(message)) return true;
    e = driverError ?? cause;
  }
  return false;
}

/** Turns anything thrown into the error envelope. Used by the exception filter and the idempotency layer. */
export function renderError(err: unknown, requestId: string): RenderedError {
  let code: ErrorCode = 'internal_error';
  let message: string = ERROR_CODES.internal_error[1];
  let details: unknown;
  let headers: Record<string, string> = {};
  let unexpected = false;

  if (err instanceof DomainError) {
    code = err.code;
    message = err.message;
    details = capDetails(err.details);
    headers = err.headers ?? {};
  } else if (err instanceof HttpException) {
    const status = err.getStatus();
    code = STATUS_TO_CODE[status] ?? (status >= 500 ? 'internal_error' : 'validation_failed');
    message = ERROR_CODES[code][1];
    if (code === 'route_not_found') message = 'No route matches this method and path.';
  } else if (isBodyParserError(err)) {
    if (err.type === 'entity.too.large') code = 'payload_too_large';
    else if (err.type === 'entity.parse.failed') code = 'invalid_json';
    else if (err.type === 'encoding.unsupported' || err.type === 'charset.unsupported') code = 'unsupported_media_type';
    else code = 'validation_failed';
    message = ERROR_CODES[code][1];
  } else if (isHttpError(err) && err.status >= 400 && err.status < 500) {
    // body-parser's other failures (a corrupt gzip/deflate/br body, a bad Content-Length) carry no type.
    code = err.status === 413 ? 'payload_too_large' : err.status === 415 ? 'unsupported_media_type' : 'invalid_json';
    message = ERROR_CODES[code][1];
  } else if (isBadInputForPostgres(err)) {
    // Safety net only (logged so the DTO or pipe gets fixed): a value PostgreSQL refuses is the caller's error, never a 500.
    code = 'validation_failed';
    message = ERROR_CODES.validation_failed[1];
    unexpected = true;
  } else if (isDependencyDown(err)) {
    code = 'service_unavailable';
    message = ERROR_CODES.service_unavailable[1];
    headers = { 'Retry-After': '1' };
  } else {
    unexpected = true;
  }

  const body: ErrorBody = { status: 'error', error: { code, message, request_id: requestId } };
  if (details !== undefined) body.error.details = details;
  return { status: ERROR_CODES[code][0], body, headers, unexpected };
}

/** Errors made by the http-errors package (what body-parser and raw-body throw). */
function isHttpError(err: unknown): err is { status: number; expose: boolean } {
  return (
    !!err && typeof err === 'object' && typeof (err as { status?: unknown }).status === 'number' && typeof (err as { expose?: unknown }).expose === 'boolean'
  );
}

// 22001 string too long, 22003 number out of range, 22007/22008 bad or out-of-range date, 22021 NUL or invalid
// UTF-8, 22P02 invalid text for the column type, 22P05 untranslatable character.
const BAD_INPUT_SQLSTATES = new Set(['22001', '22003', '22007', '22008', '22021', '22P02', '22P05']);

function isBadInputForPostgres(err: unknown): boolean {
  return err instanceof QueryFailedError && BAD_INPUT_SQLSTATES.has((err as { code?: string }).code ?? '');
}

function isBodyParserError(err: unknown): err is { type: string; status: number } {
  return !!err && typeof err === 'object' && typeof (err as { type?: unknown }).type === 'string' && 'status' in err;
}
