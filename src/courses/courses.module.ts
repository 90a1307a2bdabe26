import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PartnersModule } from '../partners/partners.module';
import { AdminCoursesController } from './admin-courses.controller';
import { AdminCoursesService } from './admin-courses.service';
import { CatalogueCache } from './catalogue-cache';
import { CatalogueIndexes } from './catalogue/catalogue-indexes';
import { CatalogueLoader } from './catalogue/catalogue-loader.service';
import { Course } from './course.entity';
import { CoursePagesService } from './course-pages.service';
import { CoursesController } from './courses.controller';
import { CoursesRepository } from './courses.repository';
import { CoursesService } from './courses.service';
import { PreviewController } from './preview.controller';
import { StaticImagesController } from './static-images.controller';
import { Topic } from './topic.entity';
import { Tutor } from './tutor.entity';

@Module({
  imports: [TypeOrmModule.forFeature([Course, Topic, Tutor]), PartnersModule],
  controllers: [CoursesController, AdminCoursesController, StaticImagesController, PreviewController],
  providers: [CoursesService, CoursesRepository, CatalogueCache, CatalogueLoader, CatalogueIndexes, AdminCoursesService, CoursePagesService],
  exports: [CoursesService, CatalogueCache, CatalogueLoader, CatalogueIndexes],
})
export class CoursesModule {}
