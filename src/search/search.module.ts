import { Module } from '@nestjs/common';
import { CoursesModule } from '../courses/courses.module';
import { AdminSearchController } from './admin-search.controller';
import { SearchController } from './search.controller';
import { SearchService } from './search.service';
import { EMBEDDINGS_CLIENT, SEARCH_PROVIDERS } from './search.providers';
import { SentenceVectorStore } from './encoder/vector-store';

@Module({
  imports: [CoursesModule],
  controllers: [SearchController, AdminSearchController],
  providers: [...SEARCH_PROVIDERS, SearchService],
  // For the search worker: the encoder's store and the hosted model's client.
  exports: [SentenceVectorStore, EMBEDDINGS_CLIENT],
})
export class SearchModule {}
