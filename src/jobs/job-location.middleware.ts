import type { NextFunction, Request, Response } from 'express';

/**
 * `Location: /api/jobs/{id}` on the 202 that starts a job. Set where the body is sent rather than in the handler, so a
 * response replayed for an Idempotency-Key (which never reaches the handler) carries it too.
 */
export function jobLocation(_req: Request, res: Response, next: NextFunction): void {
  const json = res.json.bind(res);
  res.json = (body: unknown) => {
    const id = (body as { data?: { job?: { id?: unknown } } } | undefined)?.data?.job?.id;
    if (res.statusCode === 202 && typeof id === 'string') res.setHeader('Location', `/api/jobs/${id}`);
    return json(body);
  };
  next();
}
