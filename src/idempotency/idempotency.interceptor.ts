import { CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { catchError, concatMap, from, Observable, of, throwError } from 'rxjs';
import type { AuthedRequest } from '../auth/auth-context';
import { sendAsIs, sentBodyOf } from '../common/envelope.interceptor';
import { renderError } from '../common/error-response';
import { DomainError } from '../common/errors';
import { requestIdOf } from '../common/request-id';
import { requestFingerprint } from './fingerprint';
import { IdempotencyContext, IdempotencyKeyTaken } from './idempotency-context';
import { IdempotencyRecords, KeyRecord } from './idempotency-records';
import { IdempotencyStore, StoredEntry } from './idempotency.store';
import { ResponseBox } from './response-box';

export const IDEMPOTENCY_HEADER = 'idempotency-key';

type Start = { kind: 'run' } | { kind: 'replay'; status: number; body: unknown } | { kind: 'refuse'; error: DomainError };

/**
 * Safe retries for every keyed POST: the first response (status and body, deterministic 4xx
 * included) is kept 24 h per partner, mode and key, encrypted, and replayed with `Idempotent-Replayed: true`;
 * another body is 422, a retry while the first runs is 409. A 5xx frees the key unless the write was committed.
 *
 * Redis is the fast path (the in-flight claim, replays). PostgreSQL is the record: the key's row is written in the
 * same transaction as the write it guards (IdempotencySubscriber), then completed with the response. When Redis
 * has no entry (it lost its data, or the claim expired) the row decides, so a write is never applied twice.
 * Runs after the API-key guard, so the caller's scope is known.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger(IdempotencyInterceptor.name);

  constructor(
    private readonly store: IdempotencyStore,
    private readonly records: IdempotencyRecords,
    private readonly box: ResponseBox,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const req = context.switchToHttp().getRequest<AuthedRequest>();
    // Keyed requests only: on keyless routes a key would be shared by everyone behind one IP (and could replay a
    // registration's new API key to a stranger), so the header is ignored there.
    if (req.method !== 'POST' || !req.auth) return next.handle();
    const raw = req.headers[IDEMPOTENCY_HEADER];
    if (raw === undefined) return next.handle();
    const key = Array.isArray(raw) ? raw.join(',') : raw;
    if (key.length < 1 || key.length > 255) {
      return throwError(() => new DomainError('validation_failed', [{ field: 'Idempotency-Key', message: 'Idempotency-Key must be 1 to 255 characters' }]));
    }
    const res = context.switchToHttp().getResponse<Response>();
    const ctx = new IdempotencyContext(`${this.callerOf(req)}:${key}`, requestFingerprint(req.method, req.originalUrl, req.body));

    return from(this.start(ctx)).pipe(concatMap((start) => this.answer(start, res, () => this.run(ctx, next, req, res))));
  }

  private answer(start: Start, res: Response, run: () => Observable<unknown>): Observable<unknown> {
    if (start.kind === 'run') return run();
    if (start.kind === 'refuse') return throwError(() => start.error);
    res.status(start.status);
    res.setHeader('Idempotent-Replayed', 'true');
    // The stored body is the one first sent, envelope included.
    sendAsIs(res);
    return of(start.body);
  }

  /** Claims the key in Redis; when Redis knows nothing of it, asks PostgreSQL whether an earlier request applied it. */
  private async start(ctx: IdempotencyContext): Promise<Start> {
    const claim = await this.store.claim(ctx.scopeKey, ctx.fingerprint);
    if (claim.kind === 'existing') return this.fromEntry(claim.entry, ctx.fingerprint);
    let record: KeyRecord | null;
    try {
      record = await this.records.find(ctx.scopeKey);
    } catch (e) {
      await this.store.release(ctx.scopeKey).catch(() => undefined);
      throw e;
    }
    if (!record) return { kind: 'run' };
    const body = record.status !== null && record.sealed !== null ? this.box.tryOpenBody(record.sealed) : undefined;
    if (body?.ok) {
      // Back on the fast path for the next retry.
      await this.store.completeSealed(ctx.scopeKey, record.fingerprint, record.status!, record.sealed!).catch(() => undefined);
      return this.fromEntry({ state: 'done', fp: record.fingerprint, status: record.status!, body: body.value }, ctx.fingerprint);
    }
    // Committed, response not stored yet (the first request is finishing, or died in that instant), or stored under
    // another WEBHOOK_SECRET_KEY: the key stays taken.
    await this.store.release(ctx.scopeKey).catch(() => undefined);
    return this.fromEntry({ state: 'pending', fp: record.fingerprint }, ctx.fingerprint);
  }

  private fromEntry(entry: StoredEntry, fp: string): Start {
    if (entry.fp !== fp) return { kind: 'refuse', error: new DomainError('idempotency_key_reused') };
    if (entry.state === 'pending') return { kind: 'refuse', error: new DomainError('idempotency_request_in_progress') };
    return { kind: 'replay', status: entry.status, body: entry.body };
  }

  private run(ctx: IdempotencyContext, next: CallHandler, req: AuthedRequest, res: Response): Observable<unknown> {
    return ctx
      .run(() => next.handle())
      .pipe(
        // Answered 503 by the deadline meanwhile, the response still stores the route's status for the retries.
        concatMap((body: unknown) =>
          from(this.settle(ctx, (res.locals.statusBeforeDeadline as number | undefined) ?? res.statusCode, sentBodyOf(res, body)).then(() => body)),
        ),
        catchError((err: unknown) => {
          // Another request with this key committed while this one ran: answer what it answered (or 409 meanwhile).
          if (err instanceof IdempotencyKeyTaken) {
            const start = this.store.release(ctx.scopeKey).then(() => this.start(ctx));
            return from(start).pipe(concatMap((s) => this.answer(s, res, () => throwError(() => new DomainError('idempotency_request_in_progress')))));
          }
          const rendered = renderError(err, requestIdOf(req));
          const settled =
            rendered.status < 500
              ? this.settle(ctx, rendered.status, rendered.body)
              : // A 5xx frees the key for a retry, unless the write committed: then the row keeps it taken.
                this.store.release(ctx.scopeKey).catch((e: unknown) => this.logger.warn({ err: e }, 'Releasing an idempotency key failed'));
          return from(settled).pipe(concatMap(() => throwError(() => err)));
        }),
      );
  }

  /** Stores the outcome in PostgreSQL and Redis. The effect is committed whatever happens here: it never fails the answer. */
  private async settle(ctx: IdempotencyContext, status: number, body: unknown): Promise<void> {
    const sealed = this.box.sealBody(body);
    await Promise.all([
      this.records.saveResponse({ scopeKey: ctx.scopeKey, fingerprint: ctx.fingerprint, status, sealed }),
      // Without it the claim expires on its own, and PostgreSQL answers the retry.
      this.store
        .completeSealed(ctx.scopeKey, ctx.fingerprint, status, sealed)
        .catch((e: unknown) => this.logger.warn({ err: e }, 'Storing an idempotent response in Redis failed')),
    ]);
  }

  private callerOf(req: AuthedRequest): string {
    const auth = req.auth!;
    const { partnerId, mode } = auth.scope;
    return auth.role === 'admin' ? `admin:${auth.keyId}:${partnerId}:${mode}` : `p:${partnerId}:${mode}`;
  }
}
