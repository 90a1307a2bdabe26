import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ErrorResponseCounter } from '../common/http-exception.filter';

export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed' | 'disabled';

/** The process's Prometheus registry and the counters features report into. */
@Injectable()
export class MetricsService implements ErrorResponseCounter {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method, route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  readonly apiErrors = new Counter({
    name: 'api_errors_total',
    help: 'Error responses by contract error code (monthly_quota_exceeded and rate_limited are the quota and rate refusals).',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });

  readonly webhookDeliveries = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts by outcome.',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly webhookLatency = new Histogram({
    name: 'webhook_delivery_duration_seconds',
    help: 'Time a receiver took to answer a delivery attempt.',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** A gauge whose value is read when /metrics is scraped (queue depth, outbox backlog). */
  gauge(name: string, help: string, labelNames: string[], collect: (set: (labels: Record<string, string>, value: number) => void) => Promise<void>): void {
    if (this.registry.getSingleMetric(name)) return;
    new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        await collect((labels, value) => this.set(labels, value)).catch(() => undefined);
      },
    });
  }

  countErrorResponse(code: string): void {
    this.apiErrors.inc({ code });
  }

  recordDelivery(outcome: DeliveryOutcome, seconds?: number): void {
    this.webhookDeliveries.inc({ outcome });
    if (seconds !== undefined) this.webhookLatency.observe(seconds);
  }
}
