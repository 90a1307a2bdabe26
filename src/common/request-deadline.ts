import type { Request, Response } from 'express';
import { renderError } from './error-response';
import { DomainError } from './errors';
import { assignRequestId } from './request-id';

/** The 503 goes out this much before the budget: writing it and a busy event loop must not push it past. */
export const DEADLINE_MARGIN_MS = 250;

/**
 * Every request is answered within REQUEST_TIMEOUT_MS, whatever PostgreSQL or Redis are doing: a client never hangs.
 * Just before it (request-lifecycle.ts arms the timer), a request whose response has not started gets 503
 * service_unavailable (with Retry-After); the handler may still finish in the background, and whatever it then
 * writes is dropped (a write it committed is kept, and an Idempotency-Key retry gets its real response).
 * Dependency timeouts sit below this bound, so it is a safety net.
 */
export function answerPastDeadline(req: Request, res: Response): void {
  if (res.headersSent) return;
  // The route's own status, for a handler that finishes later and stores its response for Idempotency-Key retries.
  res.locals.statusBeforeDeadline = res.statusCode;
  const rendered = renderError(new DomainError('service_unavailable'), assignRequestId(req, res));
  res.setHeader('Retry-After', '1');
  res.status(rendered.status).json(rendered.body);
  silence(res);
}

/** The late handler's answer goes nowhere instead of failing on a response that has already ended. */
function silence(res: Response): void {
  const self = () => res;
  Object.assign(res, { status: self, json: self, send: self, setHeader: self, writeHead: self, end: self, write: () => true });
}
