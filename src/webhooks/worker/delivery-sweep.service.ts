import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { errorMessage } from '../../common/error-message';
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
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly store: DeliveryStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly queue: WebhookQueue,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
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
      if (rows.length < PAGE || this.stopped) return total;
      after = rows[rows.length - 1];
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick();
    }, this.config.webhook.sweepIntervalMs);
  }

  private async tick(): Promise<void> {
    try {
      const enqueued = await this.sweep();
      if (enqueued) this.logger.log({ enqueued }, 'Delivery sweep re-enqueued due deliveries');
    } catch (err) {
      this.logger.warn({ err: errorMessage(err) }, 'Delivery sweep failed; retrying at the next interval');
    }
    this.schedule();
  }
}
