import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { AuthedRequest } from '../auth/auth-context';
import { errorMessage } from '../common/error-message';
import { PeriodicTask } from '../common/periodic-task';
import { requestIdOf } from '../common/request-id';
import { maskApiKeys, maskUrl } from '../logging';
import { RecordedRequest, RequestLogRepository } from './request-log.repository';

/** Requests are written at most this often (and sooner when a batch fills up). */
export const REQUEST_FLUSH_MS = 1000;
/** How long the dashboard's request log keeps a request. */
export const REQUEST_RETENTION_DAYS = 7;
/** How long calls per day are kept (the usage chart shows this month; a year and a bit covers comparisons). */
export const USAGE_DAYS_RETENTION_DAYS = 400;
const PRUNE_EVERY_MS = 3_600_000;
const MAX_BATCH = 500;
/** When PostgreSQL is away, at most this many requests wait; older ones are dropped (the log is a convenience, not the record). */
const MAX_BUFFERED = 20_000;

/**
 * Records every request made with a valid key of an active partner (including those its rate limit or quota refused)
 * for the partner's dashboard, off the hot path: the request's `finish` observer only pushes to an array; a timer
 * writes the buffer every REQUEST_FLUSH_MS in one statement, with the calls per day. It also prunes what is older
 * than the retention, once an hour.
 */
@Injectable()
export class RequestRecorder implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RequestRecorder.name);
  private buffer: RecordedRequest[] = [];
  private readonly flushLoop = new PeriodicTask({ name: RequestRecorder.name, intervalMs: REQUEST_FLUSH_MS, jitter: 0, unref: true }, () => this.flush());
  private readonly pruneLoop = new PeriodicTask({ name: 'RequestLogPrune', intervalMs: PRUNE_EVERY_MS, unref: true }, () => this.prune());
  private dropped = 0;

  constructor(private readonly repo: RequestLogRepository) {}

  onApplicationBootstrap(): void {
    this.flushLoop.start();
    this.pruneLoop.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all([this.flushLoop.stop(), this.pruneLoop.stop()]);
    await this.flush();
  }

  /** A finished-request observer (app.factory.ts): O(1), no I/O. */
  readonly observe = (req: Request, res: Response, elapsedMs: number): void => {
    const auth = (req as AuthedRequest).auth;
    if (!auth) return;
    const key = req.headers['x-api-key'];
    this.buffer.push({
      partnerId: auth.scope.partnerId,
      mode: auth.scope.mode,
      method: req.method,
      path: maskApiKeys(maskUrl(req.originalUrl) ?? req.path).slice(0, 2048),
      status: res.statusCode,
      durationMs: Math.max(0, Math.round(elapsedMs)),
      requestId: requestIdOf(req),
      keyPrefix: typeof key === 'string' ? key.slice(0, 14) : null,
      at: new Date(),
      // The guard's last refusals (429 rate_limited, 401 monthly_quota_exceeded) come after it knew the partner; they
      // are logged but, like every refused call, not counted.
      counted: auth.role === 'partner' && res.statusCode !== 429 && res.statusCode !== 401,
    });
    if (this.buffer.length > MAX_BUFFERED) {
      this.dropped += this.buffer.length - MAX_BUFFERED;
      this.buffer.splice(0, this.buffer.length - MAX_BUFFERED);
    }
    if (this.buffer.length >= MAX_BATCH) void this.flushLoop.runNow();
  };

  /** Writes what is buffered now (tests and shutdown); concurrent callers share the write in progress. */
  async flush(): Promise<void> {
    while (this.buffer.length) {
      const batch = this.buffer.splice(0, MAX_BATCH);
      try {
        await this.repo.insert(batch);
      } catch (err) {
        // Put back for the next tick (older first), within the buffer's bound.
        this.buffer = [...batch, ...this.buffer].slice(-MAX_BUFFERED);
        this.logger.warn({ err: errorMessage(err), requests: batch.length }, 'Writing the request log failed; retrying');
        return;
      }
    }
    if (this.dropped) {
      this.logger.warn({ dropped: this.dropped }, 'Request log entries dropped while PostgreSQL was unreachable');
      this.dropped = 0;
    }
  }

  /** Deletes requests past the retention (and old day counts); hourly, and callable by operators and tests. */
  async prune(): Promise<void> {
    const now = Date.now();
    try {
      const removed = await this.repo.prune(
        new Date(now - REQUEST_RETENTION_DAYS * 86_400_000),
        new Date(now - USAGE_DAYS_RETENTION_DAYS * 86_400_000).toISOString().slice(0, 10),
      );
      if (removed) this.logger.log({ removed }, 'Pruned the request log');
    } catch (err) {
      this.logger.warn({ err: errorMessage(err) }, 'Pruning the request log failed');
    }
  }
}
