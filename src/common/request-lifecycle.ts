import type { NextFunction, Request, Response } from 'express';
import { answerPastDeadline, DEADLINE_MARGIN_MS } from './request-deadline';
import { requestContext } from './request-context';
import { assignRequestId } from './request-id';

/** Told once when a response has been written: the request log line and the HTTP metrics. */
export type FinishedRequestObserver = (req: Request, res: Response, elapsedMs: number) => void;

/**
 * What every request gets before anything else, in one middleware with one `finish` listener (each listener,
 * timer and closure is paid on every request, so the per-request plumbing is not spread over several):
 * - its request id (echoed or generated), kept in AsyncLocalStorage for every log line written on its behalf;
 * - `X-Content-Type-Options: nosniff`;
 * - the request deadline (503 just before `timeoutMs`, see request-deadline.ts);
 * - the observers, called when the response has been written.
 */
export function requestLifecycle(timeoutMs: number, observers: FinishedRequestObserver[]) {
  const deadlineMs = timeoutMs - DEADLINE_MARGIN_MS;
  return (req: Request, res: Response, next: NextFunction): void => {
    const requestId = assignRequestId(req, res);
    // Browsers must take every response (JSON above all) as the type it declares, never sniff it into HTML or script.
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const started = performance.now();
    const timer = setTimeout(answerPastDeadline, deadlineMs, req, res);
    res.once('finish', () => {
      clearTimeout(timer);
      const elapsedMs = performance.now() - started;
      for (const observe of observers) observe(req, res, elapsedMs);
    });
    // A connection closed before the response was written fires no 'finish'.
    res.once('close', () => clearTimeout(timer));
    requestContext.run({ requestId }, next);
  };
}
