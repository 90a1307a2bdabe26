import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { PeriodicTask } from '../../common/periodic-task';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { WebhookQueue } from '../webhook-queue';
import { DeliveryStore, DueDelivery } from './delivery-store';

const PAGE = 1000;
/** A delivery is left this long past its due time to its own job before the sweep re-enqueues it. */
const MAX_GRACE_MS = 5000;

/**
 * Deliveries are driven by PostgreSQL, since Redis may lose its data: every WEBHOOK_SWEEP_INTERVAL_MS the worker
 * re-enqueues every due delivery, pending with its next attempt time (or, never attempted, its creation) passed,
 * whether its queue job still exists or Redis lost it (a restart without persistence, a failover, an attempt lost
 * mid-flight). Enqueueing is idempotent (job id = delivery id, finished jobs removed at once), so a delivery whose
 * job is still waiting, delayed or running is left alone; several workers may sweep at once.
 */
@Injectable()
export class DeliverySweep implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(DeliverySweep.name);
  private readonly task: PeriodicTask;

  constructor(
    private readonly store: DeliveryStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly queue: WebhookQueue,
  ) {
    this.task = new PeriodicTask({ name: DeliverySweep.name, intervalMs: config.webhook.sweepIntervalMs }, () => this.pass());
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.task.stop();
  }

  /** One sweep over every due delivery; returns how many it enqueued (or found enqueued already). */
  async sweep(): Promise<number> {
    const graceMs = Math.min(MAX_GRACE_MS, this.config.webhook.sweepIntervalMs);
    let after: DueDelivery | null = null;
    let total = 0;
    for (;;) {
      const rows = await this.store.duePage(graceMs, after, PAGE);
      if (!rows.length) return total;
      await this.queue.enqueue(rows.map((r) => r.id));
      total += rows.length;
      if (rows.length < PAGE || this.task.stopping) return total;
      after = rows[rows.length - 1];
    }
  }

  private async pass(): Promise<void> {
    const enqueued = await this.sweep();
    if (enqueued) this.logger.log({ enqueued }, 'Delivery sweep re-enqueued due deliveries');
  }
}
