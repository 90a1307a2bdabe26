/** What the service said went wrong, or why no answer came: every failed call throws one of these. */
export class PartnerApiError extends Error {
  /** The HTTP status; 0 when no answer came (a network error or a timeout, after any retries). */
  readonly status: number;
  /** The error code from the envelope (`insufficient_credits`, `rate_limited`, …), or `network_error` / `timeout`. */
  readonly code: string;
  /** The service's `request_id` (also the response's `X-Request-Id`): quote it when you ask for support. */
  readonly requestId: string | null;
  /** The envelope's `details` (field errors, `{ required, available }`, …), when the service gave any. */
  readonly details: unknown;
  /** The response's headers (`Retry-After`, `X-Quota-*`, …); empty when no answer came. */
  readonly headers: Headers;
  /** How many times the request was sent, retries included. */
  readonly attempts: number;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    requestId?: string | null;
    details?: unknown;
    headers?: Headers;
    attempts?: number;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'PartnerApiError';
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId ?? null;
    this.details = init.details;
    this.headers = init.headers ?? new Headers();
    this.attempts = init.attempts ?? 1;
  }

  /** Builds the error from an error response and its parsed body (the envelope, or whatever a proxy in between sent). */
  static fromResponse(response: Response, body: unknown, attempts: number): PartnerApiError {
    const error = isRecord(body) && isRecord(body.error) ? body.error : undefined;
    const requestId = typeof error?.request_id === 'string' ? error.request_id : response.headers.get('x-request-id');
    return new PartnerApiError({
      status: response.status,
      code: typeof error?.code === 'string' ? error.code : `http_${response.status}`,
      message: typeof error?.message === 'string' ? error.message : `HTTP ${response.status} ${response.statusText}`.trim(),
      requestId,
      details: error?.details,
      headers: response.headers,
      attempts,
    });
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
