import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { Batcher } from '../common/batcher';
import { errorMessage } from '../common/error-message';
import { DomainEvent, EVENTS_COMMITTED } from '../events/event-map';
import { WebhookFanOut } from './webhook-fan-out.service';

/**
 * Small on purpose: after a commit it only fans out and enqueues; the relay covers whatever fails here.
 * Events committed while a fan-out is running go out together in the next one (three statements per batch, not
 * per event); an event committed when nothing is running goes out at once.
 */
@Injectable()
export class WebhookEventsListener implements BeforeApplicationShutdown {
  private readonly logger = new Logger(WebhookEventsListener.name);
  private readonly batches = new Batcher<DomainEvent, void>((events) => this.dispatch(events), { maxBatch: 500, maxInFlight: 2 });
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly fanOut: WebhookFanOut) {}

  @OnEvent(EVENTS_COMMITTED)
  onCommitted(events: DomainEvent[]): void {
    for (const event of events) {
      const call = this.batches.call(event).finally(() => this.inFlight.delete(call));
      this.inFlight.add(call);
    }
  }

  /** On shutdown, while the pools are still open: dispatch what is waiting, so nothing waits for the relay needlessly. */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  /** Never rejects: a failed fan-out leaves the events undispatched in the outbox, for the relay. */
  private async dispatch(events: DomainEvent[]): Promise<void[]> {
    await this.fanOut.dispatch(events).catch((err) => {
      this.logger.warn({ err: errorMessage(err), events: events.map((e) => e.id) }, 'Webhook fan-out deferred to the outbox relay');
    });
    return events.map(() => undefined);
  }
}
