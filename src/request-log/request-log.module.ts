import { Module } from '@nestjs/common';
import { RequestLogRepository } from './request-log.repository';
import { RequestLogService } from './request-log.service';
import { RequestRecorder } from './request-recorder';

/** The recent requests of each partner and mode, and calls per day, for the partner dashboard. */
@Module({
  providers: [RequestLogRepository, RequestLogService, RequestRecorder],
  exports: [RequestLogService, RequestRecorder],
})
export class RequestLogModule {}
