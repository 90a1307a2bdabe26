import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { BoundedQueryable } from '../common/database';
import { DomainError } from '../common/errors';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { CatalogueIndexes } from '../courses/catalogue/catalogue-indexes';
import { CoursesService } from '../courses/courses.service';
import { RedisService } from '../redis/redis.service';
import { SearchResponseDto } from './dto/search.dto';
import { EmbeddingsClient } from './embeddings.client';
import { SearchEngine } from './search-engine';
import { SEARCH_DOCUMENTS_INDEX } from './search.store';
import { SearchLexicon } from './search-lexicon';
import { EmbeddedSemantic, preparingSql } from './semantic/embedded-semantic';
import { SemanticSearch } from './semantic-search';
import { SentenceRanker } from './encoder/sentence-ranker';
import { EncoderIndexStatus, SentenceVectorStore } from './encoder/vector-store';
import { SENTENCE_MODEL } from './encoder/sentence-model';
import { CATALOGUE_CHANGED } from '../redis/channels';

/** Longest a search statement may run: the cost bound of one search, whatever its text. */
export const SEARCH_STATEMENT_TIMEOUT_MS = 1000;
// Search statements running at once per process: a burst of searches waits here instead of crowding PostgreSQL.
const SEARCH_CONCURRENCY = 8;

/**
 * The connection every search statement runs on: the app's pool, each statement bounded to a second (past it, 503
 * and Retry-After instead of a connection held for the request's whole budget), and at most SEARCH_CONCURRENCY at
 * once, so searches cannot take more than their share of PostgreSQL from the other routes.
 */
export function searchConnection(db: DataSource): BoundedQueryable {
  return new BoundedQueryable(
    db,
    SEARCH_STATEMENT_TIMEOUT_MS,
    SEARCH_CONCURRENCY,
    () => new DomainError('service_unavailable', undefined, 'The search took too long. Retry shortly.', { 'Retry-After': '1' }),
  );
}

/**
 * POST /api/search: lexical search fused with the embedded semantic engine (on by default, SEARCH_EMBEDDED_ENGINE),
 * the sentence encoder (on by default, SEARCH_SENTENCE_ENCODER) and the hosted model's ranking when
 * SEARCH_EMBEDDINGS_URL is set.
 */
@Injectable()
export class SearchService implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly engine: SearchEngine;
  private readonly searchDb: BoundedQueryable;
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
    private readonly catalogueIndexes: CatalogueIndexes,
  ) {
    const { embeddedEngine, embeddingsUrl, embeddingsModel, embeddingsApiKey } = config.search;
    const lexicon = SearchLexicon.load();
    this.searchDb = searchConnection(db);
    const hosted = embeddingsUrl
      ? new SemanticSearch(db, new EmbeddingsClient({ url: embeddingsUrl, model: embeddingsModel, apiKey: embeddingsApiKey }))
      : undefined;
    this.embedded = embeddedEngine ? new EmbeddedSemantic(preparingSql(db), this.searchDb, lexicon.stopwords, this.logger) : undefined;
    this.encoder = config.search.sentenceEncoder ? new SentenceRanker(db, this.logger) : undefined;
    this.engine = new SearchEngine(this.searchDb, lexicon, courses, { embedded: this.embedded, hosted, encoder: this.encoder }, this.logger);
    this.status = new SentenceVectorStore(db, SENTENCE_MODEL);
  }

  onModuleInit(): void {
    this.catalogueIndexes.register(SEARCH_DOCUMENTS_INDEX);
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

  /** The connections search keeps go back to the pool while it is still open. */
  beforeApplicationShutdown(): Promise<void> {
    return this.searchDb.close();
  }

  onApplicationShutdown(): void {
    this.encoder?.stop();
    this.embedded?.stop();
  }
}
