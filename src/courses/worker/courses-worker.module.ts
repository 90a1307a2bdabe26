import { Module } from '@nestjs/common';
import { CoursesModule } from '../courses.module';
import { EnrollmentCountFolder } from './enrollment-count-folder';

/** The catalogue's background work: folding enrolment counter shards. Loaded where the worker runs. */
@Module({
  imports: [CoursesModule],
  providers: [EnrollmentCountFolder],
})
export class CoursesWorkerModule {}
