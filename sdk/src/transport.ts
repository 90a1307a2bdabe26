import { randomUUID } from 'node:crypto';
import { PartnerApiError } from './errors';
import { IDEMPOTENT_POST_ROUTES } from './generated/routes';

export interface RetryOptions {
  /** How long one attempt may take before it is abandoned (and retried when that is safe). */
  timeoutMs: number;
  /** Retries after the first attempt. */
  maxRetries: number;
  /** No retry starts once this long has passed since the first attempt began, nor one whose wait would end later. */
  maxRetryTimeMs: number;
}

/** What the client knows about a request that the Request object does not carry. */
export interface RequestContext {
  /** The route as the document names it (`/api/users/{id}`). */
  schemaPath: string;
}

// Errors raised before a byte of the request could leave: retrying them cannot apply a write twice.
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);
// PUT and DELETE are idempotent by HTTP's rules; every PATCH of this API sets fields to the values sent, so it is too.
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'PATCH']);
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8000;

class TimeoutError extends Error {}

/**
 * Sends a request with the client's retry rules: network errors, timeouts, 429 and 503 are retried (and 409
 * `idempotency_request_in_progress`, which only an earlier attempt of the same call can cause), waiting as long as
 * `Retry-After` says or backing off exponentially with jitter, within a count and a time budget. A POST is retried after
 * it was sent only where the route honours `Idempotency-Key`: it gets one key, kept for every attempt.
 */
export class RetryingTransport {
  /** Attempts each returned response took, for the client to report. */
  readonly attempts = new WeakMap<Response, number>();

  constructor(
    private readonly options: RetryOptions,
    private readonly fetchImpl: typeof fetch,
  ) {}

  async send(request: Request, context: RequestContext | undefined): Promise<Response> {
    const method = request.method.toUpperCase();
    const keyed = method === 'POST' && context !== undefined && IDEMPOTENT_POST_ROUTES.has(context.schemaPath);
    if (keyed && !request.headers.has('idempotency-key')) request.headers.set('Idempotency-Key', randomUUID());
    const retriesAfterSending = keyed || IDEMPOTENT_METHODS.has(method);
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      let response: Response | undefined;
      let failure: unknown;
      try {
        response = await this.attempt(request.clone(), request.signal);
      } catch (err) {
        if (request.signal.aborted) throw err;
        failure = err;
      }
      // An answer means the request was sent: a POST the route cannot deduplicate is not sent twice, whatever came back.
      const retryable = response ? retriesAfterSending && (await this.retryableAnswer(response, keyed)) : retriesAfterSending || notSent(failure);
      const wait = retryable ? this.delay(attempt, response) : undefined;
      const canRetry = wait !== undefined && attempt <= this.options.maxRetries && Date.now() + wait - started <= this.options.maxRetryTimeMs;
      if (!canRetry) {
        if (response) {
          this.attempts.set(response, attempt);
          return response;
        }
        throw connectionError(failure, attempt);
      }
      await response?.body?.cancel().catch(() => undefined);
      await sleep(wait, request.signal);
    }
  }

  private async attempt(request: Request, callerSignal: AbortSignal): Promise<Response> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(callerSignal.reason);
    callerSignal.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => controller.abort(new TimeoutError(`no answer within ${this.options.timeoutMs} ms`)), this.options.timeoutMs);
    try {
      return await this.fetchImpl(request, { signal: controller.signal });
    } catch (err) {
      // fetch rejects with the abort reason, or with a DOMException that carries it as its cause.
      if (controller.signal.reason instanceof TimeoutError && !callerSignal.aborted) throw controller.signal.reason;
      throw err;
    } finally {
      clearTimeout(timer);
      callerSignal.removeEventListener('abort', onAbort);
    }
  }

  private async retryableAnswer(response: Response, keyed: boolean): Promise<boolean> {
    if (response.status === 429 || response.status === 503) return true;
    if (response.status !== 409 || !keyed) return false;
    const body: unknown = await response
      .clone()
      .json()
      .catch(() => undefined);
    return (body as { error?: { code?: unknown } } | undefined)?.error?.code === 'idempotency_request_in_progress';
  }

  private delay(attempt: number, response: Response | undefined): number {
    const retryAfter = parseRetryAfter(response?.headers.get('retry-after'));
    if (retryAfter !== undefined) return retryAfter;
    const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (attempt - 1));
    // "Equal jitter": at least half the back-off, so many clients spread out without retrying at once.
    return ceiling / 2 + Math.random() * (ceiling / 2);
  }
}

/** `Retry-After` in milliseconds: delay-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null | undefined): number | undefined {
  if (!value) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function notSent(err: unknown): boolean {
  const cause = err instanceof Error ? (err.cause as { code?: unknown } | undefined) : undefined;
  return typeof cause?.code === 'string' && NOT_SENT.has(cause.code);
}

function connectionError(err: unknown, attempts: number): PartnerApiError {
  const timeout = err instanceof TimeoutError;
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new PartnerApiError({
    status: 0,
    code: timeout ? 'timeout' : 'network_error',
    message: timeout ? `The service gave no answer in time (${reason}; ${attempts} attempt(s))` : `The request failed: ${reason} (${attempts} attempt(s))`,
    attempts,
    cause: err,
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
