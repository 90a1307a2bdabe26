import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { CoursesService } from '../courses/courses.service';
import { RedisService } from '../redis/redis.service';
import { SearchResponseDto } from './dto/search.dto';
import { EmbeddingsClient } from './embeddings.client';
import { SearchDatabase } from './search-database';
import { SearchEngine } from './search-engine';
import { SearchLexicon } from './search-lexicon';
import { EmbeddedSemantic, preparingSql } from './semantic/embedded-semantic';
import { SemanticSearch } from './semantic-search';
import { CATALOGUE_CHANGED } from '../redis/channels';

/**
 * POST /api/search: lexical search fused with the embedded semantic engine (on by default, SEARCH_EMBEDDED_ENGINE)
 * and with the hosted model's ranking when SEARCH_EMBEDDINGS_URL is set.
 */
@Injectable()
export class SearchService implements OnModuleInit, OnApplicationShutdown {
  private readonly engine: SearchEngine;
  private readonly searchDb: SearchDatabase;
  /** The embedded semantic engine, when on: its `ready` resolves once its first index is built. */
  readonly embedded?: EmbeddedSemantic;
  private readonly logger = new Logger(SearchService.name);

  constructor(
    @InjectDataSource() db: DataSource,
    courses: CoursesService,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly redis: RedisService,
  ) {
    const { embeddedEngine, embeddingsUrl, embeddingsModel, embeddingsApiKey } = config.search;
    const lexicon = SearchLexicon.load();
    this.searchDb = new SearchDatabase(config.databaseUrl);
    const hosted = embeddingsUrl
      ? new SemanticSearch(db, new EmbeddingsClient({ url: embeddingsUrl, model: embeddingsModel, apiKey: embeddingsApiKey }))
      : undefined;
    this.embedded = embeddedEngine ? new EmbeddedSemantic(preparingSql(db), this.searchDb, lexicon.stopwords, this.logger) : undefined;
    this.engine = new SearchEngine(this.searchDb, lexicon, courses.urls, { embedded: this.embedded, hosted }, this.logger);
  }

  onModuleInit(): void {
    if (!this.embedded) return;
    this.embedded.start();
    // Every instance rebuilds its index when any instance changes the catalogue (and checks a stamp every 10 s).
    this.redis.subscribe(
      CATALOGUE_CHANGED,
      () => void this.embedded!.refresh().catch((e) => this.logger.warn(`semantic index refresh failed: ${(e as Error).message}`)),
    );
  }

  search(query: string, limit: number): Promise<SearchResponseDto> {
    return this.engine.search(query, limit);
  }

  async onApplicationShutdown(): Promise<void> {
    this.embedded?.stop();
    await this.searchDb.close();
  }
}
