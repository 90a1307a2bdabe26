import { Module } from '@nestjs/common';
import { CoursesModule } from '../courses/courses.module';
import { AdminSearchController } from './admin-search.controller';
import { SearchController } from './search.controller';
import { SearchService } from './search.service';

@Module({
  imports: [CoursesModule],
  controllers: [SearchController, AdminSearchController],
  providers: [SearchService],
})
export class SearchModule {}
