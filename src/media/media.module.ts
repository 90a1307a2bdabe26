import { Module } from '@nestjs/common';
import { WebinarsModule } from '../webinars/webinars.module';
import { MediaEventsListener } from './media-events.listener';
import { MediaRelay } from './media-relay.service';
import { SignallingController } from './signalling.controller';

/** The live media relay (WebRTC SFU) and its WHIP/WHEP signalling. */
@Module({
  imports: [WebinarsModule],
  controllers: [SignallingController],
  providers: [MediaRelay, MediaEventsListener],
  exports: [MediaRelay],
})
export class MediaModule {}
