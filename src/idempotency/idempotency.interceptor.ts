import { CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { catchError, concatMap, from, Observable, of, throwError } from 'rxjs';
import type { AuthedRequest } from '../auth/auth-context';
import { renderError } from '../common/error-response';
import { DomainError } from '../common/errors';
import { requestIdOf } from '../common/request-id';
import { requestFingerprint } from './fingerprint';
import { IdempotencyStore } from './idempotency.store';

export const IDEMPOTENCY_HEADER = 'idempotency-key';

/**
 * Contract section 13 for every POST: the first response (status and body, deterministic 4xx included)
 * is kept 24 h per partner, mode and key (per client IP on keyless routes) and replayed with
 * `Idempotent-Replayed: true`; another body is 422, a retry while the first runs is 409. A 5xx frees the key.
 * Runs after the API-key guard, so the caller's scope is known.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger(IdempotencyInterceptor.name);

  constructor(private readonly store: IdempotencyStore) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const req = context.switchToHttp().getRequest<AuthedRequest>();
    if (req.method !== 'POST') return next.handle();
    const raw = req.headers[IDEMPOTENCY_HEADER];
    if (raw === undefined) return next.handle();
    const key = Array.isArray(raw) ? raw.join(',') : raw;
    if (key.length < 1 || key.length > 255) {
      return throwError(() => new DomainError('validation_failed', [{ field: 'Idempotency-Key', message: 'Idempotency-Key must be 1 to 255 characters' }]));
    }
    const res = context.switchToHttp().getResponse<Response>();
    const scopeKey = `${this.callerOf(req)}:${key}`;
    const fp = requestFingerprint(req.method, req.originalUrl, req.body);

    return from(this.store.claim(scopeKey, fp)).pipe(
      concatMap((claim) => {
        if (claim.kind === 'claimed') return this.run(next, req, res, scopeKey, fp);
        const entry = claim.entry;
        if (entry.fp !== fp) return throwError(() => new DomainError('idempotency_key_reused'));
        if (entry.state === 'pending') return throwError(() => new DomainError('idempotency_request_in_progress'));
        res.status(entry.status);
        res.setHeader('Idempotent-Replayed', 'true');
        return of(entry.body);
      }),
    );
  }

  private run(next: CallHandler, req: AuthedRequest, res: Response, scopeKey: string, fp: string): Observable<unknown> {
    return next.handle().pipe(
      concatMap((body) =>
        from(
          this.store.complete(scopeKey, fp, res.statusCode, body).then(
            () => body,
            // The effect is committed: answer it; the claim expires on its own.
            (e: unknown) => (this.logger.warn({ err: e }, 'Storing an idempotent response failed'), body),
          ),
        ),
      ),
      catchError((err: unknown) => {
        const rendered = renderError(err, requestIdOf(req));
        const settle = rendered.status < 500 ? this.store.complete(scopeKey, fp, rendered.status, rendered.body) : this.store.release(scopeKey);
        return from(
          settle.catch((e: unknown) => this.logger.warn({ err: e }, 'Settling an idempotency key failed')),
        ).pipe(concatMap(() => throwError(() => err)));
      }),
    );
  }

  private callerOf(req: AuthedRequest): string {
    const auth = req.auth;
    if (!auth) return `ip:${req.ip ?? 'unknown'}`;
    const { partnerId, mode } = auth.scope;
    return auth.role === 'admin' ? `admin:${auth.keyId}:${partnerId}:${mode}` : `p:${partnerId}:${mode}`;
  }
}
