import { Module } from '@nestjs/common';
import { CoursesModule } from '../courses/courses.module';
import { SearchController } from './search.controller';
import { SearchService } from './search.service';

@Module({
  imports: [CoursesModule],
  controllers: [SearchController],
  providers: [SearchService],
})
export class SearchModule {}
