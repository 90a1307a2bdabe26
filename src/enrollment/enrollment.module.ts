import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CoursesModule } from '../courses/courses.module';
import { CreditsModule } from '../credits/credits.module';
import { UsersModule } from '../users/users.module';
import { EnrollmentTopic } from './enrollment-topic.entity';
import { EnrollmentController } from './enrollment.controller';
import { Enrollment } from './enrollment.entity';
import { EnrollmentsRepository } from './enrollments.repository';
import { EnrollmentsService } from './enrollments.service';
import { ProgressService } from './progress.service';

@Module({
  imports: [TypeOrmModule.forFeature([Enrollment, EnrollmentTopic]), UsersModule, CoursesModule, CreditsModule],
  controllers: [EnrollmentController],
  providers: [EnrollmentsService, EnrollmentsRepository, ProgressService],
  exports: [EnrollmentsService],
})
export class EnrollmentModule {}
