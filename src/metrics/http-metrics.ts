import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { MetricsService } from './metrics.service';

type Children = { count: { inc(): void }; duration: { observe(v: number): void } };

/**
 * Counts and times every request by its route pattern (not its raw path, which would explode the label set).
 * An observer of `requestLifecycle` (app.factory.ts), which calls `observe` once the response has been written.
 */
@Injectable()
export class HttpMetrics {
  // Label children are cached: resolving labels on every request is the costly part of prom-client.
  private readonly children = new Map<string, Children>();

  constructor(private readonly metrics: MetricsService) {}

  readonly observe = (req: Request, res: Response, elapsedMs: number): void => {
    // Express types req.route as any; when a route matched, its path is the pattern string Nest registered.
    const routePath = (req.route as { path?: string } | undefined)?.path;
    const route = routePath ? `${req.baseUrl ?? ''}${routePath}` : 'unmatched';
    const status = String(res.statusCode);
    const key = `${req.method} ${route} ${status}`;
    let c = this.children.get(key);
    if (!c) {
      c = { count: this.metrics.httpRequests.labels(req.method, route, status), duration: this.metrics.httpDuration.labels(req.method, route, status) };
      this.children.set(key, c);
    }
    c.count.inc();
    c.duration.observe(elapsedMs / 1000);
  };
}
