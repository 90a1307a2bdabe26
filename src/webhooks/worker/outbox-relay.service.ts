import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { errorMessage } from '../../common/error-message';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { OutboxService } from '../../events/outbox.service';
import { WebhookFanOut } from '../webhook-fan-out.service';
import { WebhookQueue } from '../webhook-queue';

const BATCH = 200;
/** Fresh events are normally dispatched in process right after commit; the relay leaves them that long. */
const GRACE_SECONDS = 2;

/**
 * Sweeps outbox rows that were committed but never dispatched (crash, or Redis down between commit and enqueue).
 * Rows are claimed with SKIP LOCKED, so several relays never dispatch the same event at once.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(OutboxRelay.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly fanOut: WebhookFanOut,
    private readonly queue: WebhookQueue,
    private readonly outbox: OutboxService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule(this.config.webhook.relayIntervalMs);
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One sweep; returns how many events it dispatched. */
  async sweep(): Promise<number> {
    return this.dataSource.transaction(async (em) => {
      const { ids, events } = await this.outbox.claimUndispatched(em, BATCH, GRACE_SECONDS);
      if (!ids.length) return 0;
      const pending = await this.fanOut.createDeliveries(events);
      await this.queue.enqueue(pending); // throws while Redis is down: the rows stay undispatched for the next sweep
      await this.outbox.markDispatched(ids, em);
      return ids.length;
    });
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick();
    }, delayMs);
  }

  private async tick(): Promise<void> {
    let dispatched = 0;
    try {
      dispatched = await this.sweep();
      if (dispatched) this.logger.log({ dispatched }, 'Outbox relay dispatched events');
    } catch (err) {
      this.logger.warn({ err: errorMessage(err) }, 'Outbox relay sweep failed; retrying');
    }
    this.schedule(dispatched === BATCH ? 0 : this.config.webhook.relayIntervalMs);
  }
}
