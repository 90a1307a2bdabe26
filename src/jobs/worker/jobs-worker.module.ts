import { Module } from '@nestjs/common';
import { EnrollmentModule } from '../../enrollment/enrollment.module';
import { UsersModule } from '../../users/users.module';
import { JobsModule } from '../jobs.module';
import { BulkEnrollmentJob } from './bulk-enrollment.job';
import { JobsSweep } from './jobs-sweep.service';
import { JobsProcessor } from './jobs.processor';

/** The jobs queue's processor and its sweep: loaded in the API when RUN_WORKER=true, and in the worker process. */
@Module({
  imports: [JobsModule, EnrollmentModule, UsersModule],
  providers: [BulkEnrollmentJob, JobsProcessor, JobsSweep],
})
export class JobsWorkerModule {}
