import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogueCache } from './catalogue-cache';
import { Course } from './course.entity';
import { CoursesController } from './courses.controller';
import { CoursesService } from './courses.service';
import { Topic } from './topic.entity';
import { Tutor } from './tutor.entity';

@Module({
  imports: [TypeOrmModule.forFeature([Course, Topic, Tutor])],
  controllers: [CoursesController],
  providers: [CoursesService, CatalogueCache],
  exports: [CoursesService, CatalogueCache],
})
export class CoursesModule {}
