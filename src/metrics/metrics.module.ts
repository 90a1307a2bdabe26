import { Global, Module, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { sqlOne } from '../common/database';
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
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  onModuleInit(): void {
    this.metrics.gauge('outbox_backlog', 'Domain events committed but not yet fanned out to webhooks.', [], async (set) => {
      // An aggregate without GROUP BY: always one row, n int.
      const { n } = (await sqlOne<{ n: number }>(this.dataSource, 'SELECT count(*)::int AS n FROM events WHERE dispatched_at IS NULL'))!;
      set({}, n);
    });
  }
}
