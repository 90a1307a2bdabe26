import { Module } from '@nestjs/common';
import { WebinarsModule } from '../webinars/webinars.module';
import { MediaEventsListener } from './media-events.listener';
import { MediaPresence } from './media-presence.service';
import { MediaRelay } from './media-relay.service';
import { RelayOwnership } from './relay-ownership';
import { RelayOwnersRepository } from './relay-owners.repository';
import { SignallingController } from './signalling.controller';

/** The live media relay (WebRTC SFU), its WHIP/WHEP signalling and which instance owns each webinar's relay. */
@Module({
  imports: [WebinarsModule],
  controllers: [SignallingController],
  providers: [MediaRelay, MediaEventsListener, MediaPresence, RelayOwnersRepository, RelayOwnership],
  exports: [MediaRelay],
})
export class MediaModule {}
