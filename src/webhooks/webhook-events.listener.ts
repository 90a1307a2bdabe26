import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { DomainEvent, EVENTS_COMMITTED } from '../events/event-map';
import { WebhookFanOut } from './webhook-fan-out.service';

// Events committed within this window are fanned out together: three statements per batch instead of per event.
const BATCH_WINDOW_MS = 5;
const MAX_BATCH = 500;

/** Small on purpose: after a commit it only fans out and enqueues; the relay covers whatever fails here. */
@Injectable()
export class WebhookEventsListener implements BeforeApplicationShutdown {
  private readonly logger = new Logger(WebhookEventsListener.name);
  private pending: DomainEvent[] = [];
  private timer?: NodeJS.Timeout;
  private inFlight = new Set<Promise<void>>();

  constructor(private readonly fanOut: WebhookFanOut) {}

  @OnEvent(EVENTS_COMMITTED)
  onCommitted(events: DomainEvent[]): void {
    this.pending.push(...events);
    if (this.pending.length >= MAX_BATCH) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), BATCH_WINDOW_MS);
  }

  /** On shutdown, while the pools are still open: dispatch what is waiting, so nothing waits for the relay needlessly. */
  async beforeApplicationShutdown(): Promise<void> {
    this.flush();
    await Promise.allSettled([...this.inFlight]);
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const events = this.pending;
    this.pending = [];
    if (!events.length) return;
    const run = this.fanOut
      .dispatch(events)
      .catch((err) => {
        this.logger.warn({ err: (err as Error).message, events: events.map((e) => e.id) }, 'Webhook fan-out deferred to the outbox relay');
      })
      .finally(() => this.inFlight.delete(run));
    this.inFlight.add(run);
  }
}
