import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { DomainEvent, EVENTS_COMMITTED } from '../events/event-map';
import { WebhookFanOut } from './webhook-fan-out.service';

/** Small on purpose: after a commit it only fans out and enqueues; the relay covers whatever fails here. */
@Injectable()
export class WebhookEventsListener {
  private readonly logger = new Logger(WebhookEventsListener.name);

  constructor(private readonly fanOut: WebhookFanOut) {}

  @OnEvent(EVENTS_COMMITTED)
  onCommitted(events: DomainEvent[]): void {
    this.fanOut.dispatch(events).catch((err) => {
      this.logger.warn({ err: (err as Error).message, events: events.map((e) => e.id) }, 'Webhook fan-out deferred to the outbox relay');
    });
  }
}
