import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { DomainEvent, EVENTS_COMMITTED } from '../events/event-map';
import { MediaRelay } from './media-relay.service';

/** Ending a webinar (API or host page) closes every media session of it at once. */
@Injectable()
export class MediaEventsListener {
  constructor(private readonly relay: MediaRelay) {}

  @OnEvent(EVENTS_COMMITTED)
  async onCommitted(events: DomainEvent[]): Promise<void> {
    for (const e of events) if (e.type === 'webinar.ended') await this.relay.endWebinar((e as DomainEvent<'webinar.ended'>).payload.webinar_id);
  }
}
