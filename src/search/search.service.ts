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
import { SentenceRanker } from './encoder/sentence-ranker';
import { EncoderIndexStatus, SentenceVectorStore } from './encoder/vector-store';
import { SENTENCE_MODEL } from './encoder/sentence-model';
import { CATALOGUE_CHANGED } from '../redis/channels';

/**
 * POST /api/search: lexical search fused with the embedded semantic engine (on by default, SEARCH_EMBEDDED_ENGINE),
 * the sentence encoder (on by default, SEARCH_SENTENCE_ENCODER) and the hosted model's ranking when
 * SEARCH_EMBEDDINGS_URL is set.
 */
@Injectable()
export class SearchService implements OnModuleInit, OnApplicationShutdown {
  private readonly engine: SearchEngine;
  private readonly searchDb: SearchDatabase;
  /** The embedded semantic engine, when on: its `ready` resolves once its first index is built. */
  readonly embedded?: EmbeddedSemantic;
  /** The sentence encoder, when on: its model loads and its course vectors are read in the background. */
  readonly encoder?: SentenceRanker;
  private readonly logger = new Logger(SearchService.name);
  private readonly status: SentenceVectorStore;

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
    this.encoder = config.search.sentenceEncoder ? new SentenceRanker(db, this.logger) : undefined;
    this.engine = new SearchEngine(this.searchDb, lexicon, courses.urls, { embedded: this.embedded, hosted, encoder: this.encoder }, this.logger);
    this.status = new SentenceVectorStore(db, SENTENCE_MODEL);
  }

  onModuleInit(): void {
    if (this.encoder) {
      this.encoder.start();
      this.redis.subscribe(CATALOGUE_CHANGED, () => void this.encoder!.refresh());
    }
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

  /** How far the background encoding of course texts has got (read from the database: every instance agrees). */
  indexStatus(): Promise<EncoderIndexStatus> {
    return this.status.status();
  }

  async onApplicationShutdown(): Promise<void> {
    this.encoder?.stop();
    this.embedded?.stop();
    await this.searchDb.close();
  }
}
