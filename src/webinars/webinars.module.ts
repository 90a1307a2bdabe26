import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PartnersModule } from '../partners/partners.module';
import { UsersModule } from '../users/users.module';
import { AttendanceService } from './attendance.service';
import { LiveAccessService } from './live-access.service';
import { LivePagesController } from './live-pages.controller';
import { LivePagesService } from './live-pages.service';
import { WebinarLinks } from './webinar.mapper';
import { WebinarTokens } from './webinar-tokens';
import { WebinarAttendee } from './webinar-attendee.entity';
import { Webinar } from './webinar.entity';
import { WebinarsController } from './webinars.controller';
import { WebinarsRepository } from './webinars.repository';
import { WebinarsService } from './webinars.service';
import { PresenceRepository } from './presence.repository';

@Module({
  imports: [TypeOrmModule.forFeature([Webinar, WebinarAttendee]), UsersModule, PartnersModule],
  controllers: [WebinarsController, LivePagesController],
  providers: [WebinarsService, WebinarsRepository, AttendanceService, LivePagesService, LiveAccessService, WebinarLinks, WebinarTokens, PresenceRepository],
  exports: [LiveAccessService, AttendanceService],
})
export class WebinarsModule {}
