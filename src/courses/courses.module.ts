import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogueCache } from './catalogue-cache';
import { CatalogueLoader } from './catalogue/catalogue-loader.service';
import { Course } from './course.entity';
import { CoursesController } from './courses.controller';
import { CoursesService } from './courses.service';
import { Topic } from './topic.entity';
import { Tutor } from './tutor.entity';

@Module({
  imports: [TypeOrmModule.forFeature([Course, Topic, Tutor])],
  controllers: [CoursesController],
  providers: [CoursesService, CatalogueCache, CatalogueLoader],
  exports: [CoursesService, CatalogueCache, CatalogueLoader],
})
export class CoursesModule {}
