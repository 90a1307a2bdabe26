import { BullModule } from '@nestjs/bullmq';
import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JOBS_QUEUE } from '../redis/queues';
import { BulkEnrollmentController } from './bulk-enrollment.controller';
import { JobQueue } from './job-queue';
import { jobLocation } from './job-location.middleware';
import { Job } from './job.entity';
import { JobsController } from './jobs.controller';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';

/** Background jobs partners start and poll: bulk enrolment (POST /api/enroll/bulk) and GET /api/jobs. */
@Module({
  imports: [TypeOrmModule.forFeature([Job]), BullModule.registerQueue({ name: JOBS_QUEUE })],
  controllers: [BulkEnrollmentController, JobsController],
  providers: [JobsRepository, JobsService, JobQueue],
  exports: [JobsRepository, JobQueue, JobsService],
})
export class JobsModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(jobLocation).forRoutes({ path: 'enroll/bulk', method: RequestMethod.POST });
  }
}
