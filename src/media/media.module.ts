import { Module } from '@nestjs/common';
import { WebinarsModule } from '../webinars/webinars.module';
import { MediaEventsListener } from './media-events.listener';
import { MediaPresence } from './media-presence.service';
import { MediaRelay } from './media-relay.service';
import { SignallingController } from './signalling.controller';

/** The live media relay (WebRTC SFU) and its WHIP/WHEP signalling. */
@Module({
  imports: [WebinarsModule],
  controllers: [SignallingController],
  providers: [MediaRelay, MediaEventsListener, MediaPresence],
  exports: [MediaRelay],
})
export class MediaModule {}
