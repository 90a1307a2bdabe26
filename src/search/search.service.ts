import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { CoursesService } from '../courses/courses.service';
import { SearchResponseDto } from './dto/search.dto';
import { EmbeddingsClient } from './embeddings.client';
import { SearchEngine } from './search-engine';
import { SearchLexicon } from './search-lexicon';
import { SemanticSearch } from './semantic-search';

/** POST /api/search: lexical search always; fused with the hosted model's ranking when SEARCH_EMBEDDINGS_URL is set. */
@Injectable()
export class SearchService {
  private readonly engine: SearchEngine;
  private readonly logger = new Logger(SearchService.name);

  constructor(@InjectDataSource() db: DataSource, courses: CoursesService, @Inject(APP_CONFIG) config: AppConfig) {
    const { embeddingsUrl, embeddingsModel, embeddingsApiKey } = config.search;
    const semantic = embeddingsUrl
      ? new SemanticSearch(db, new EmbeddingsClient({ url: embeddingsUrl, model: embeddingsModel, apiKey: embeddingsApiKey }))
      : undefined;
    this.engine = new SearchEngine(db, SearchLexicon.load(), courses.urls, semantic, this.logger);
  }

  search(query: string, limit: number): Promise<SearchResponseDto> {
    return this.engine.search(query, limit);
  }
}
