import { Global, Module, OnModuleInit } from '@nestjs/common';
import { OutboxService } from '../events/outbox.service';
import { HttpMetrics } from './http-metrics';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';

@Global()
@Module({
  controllers: [MetricsController],
  providers: [MetricsService, HttpMetrics],
  exports: [MetricsService, HttpMetrics],
})
export class MetricsModule implements OnModuleInit {
  constructor(
    private readonly metrics: MetricsService,
    private readonly outbox: OutboxService,
  ) {}

  onModuleInit(): void {
    this.metrics.gauge('outbox_backlog', 'Domain events committed but not yet fanned out to webhooks.', [], async (set) => {
      set({}, await this.outbox.countUndispatched());
    });
  }
}
