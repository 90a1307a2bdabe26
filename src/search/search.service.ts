import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { BoundedQueryable } from '../common/database';
import { CatalogueIndexes } from '../courses/catalogue/catalogue-indexes';
import { RedisService } from '../redis/redis.service';
import { SearchResponseDto } from './dto/search.dto';
import { SearchEngine } from './search-engine';
import { SEARCH_DOCUMENTS_INDEX } from './search.store';
import { EmbeddedSemantic } from './semantic/embedded-semantic';
import { SentenceRanker } from './encoder/sentence-ranker';
import { EncoderIndexStatus, SentenceVectorStore } from './encoder/vector-store';
import { CATALOGUE_CHANGED } from '../redis/channels';
import { SearchFacts } from './search-facts';
import { EMBEDDED_SEMANTIC, SEARCH_DB, SEARCH_FACTS, SENTENCE_RANKER } from './search.providers';

/**
 * POST /api/search: lexical search fused with the embedded semantic engine (on by default, SEARCH_EMBEDDED_ENGINE),
 * the sentence encoder (on by default, SEARCH_SENTENCE_ENCODER) and the hosted model's ranking when
 * SEARCH_EMBEDDINGS_URL is set.
 */
@Injectable()
export class SearchService implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger(SearchService.name);

  constructor(
    private readonly engine: SearchEngine,
    @Inject(SEARCH_DB) private readonly searchDb: BoundedQueryable,
    private readonly status: SentenceVectorStore,
    private readonly redis: RedisService,
    /** The embedded semantic engine, when on: its `ready` resolves once its first index is built. */
    @Inject(EMBEDDED_SEMANTIC) readonly embedded: EmbeddedSemantic | undefined,
    /** The sentence encoder, when on: its model loads and its course vectors are read in the background. */
    @Inject(SENTENCE_RANKER) readonly encoder: SentenceRanker | undefined,
    private readonly catalogueIndexes: CatalogueIndexes,
    @Inject(SEARCH_FACTS) private readonly facts: SearchFacts | undefined,
  ) {}

  onModuleInit(): void {
    this.catalogueIndexes.register(SEARCH_DOCUMENTS_INDEX);
    if (this.facts) {
      this.facts.start();
      this.redis.subscribe(
        CATALOGUE_CHANGED,
        () => void this.facts!.refresh().catch((e) => this.logger.warn(`search facts not reloaded: ${(e as Error).message}`)),
      );
    }
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

  /** The engines' passes end first; then the connections search keeps go back to the pool while it is still open. */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all([this.encoder?.stop(), this.embedded?.stop(), this.facts?.stop()]);
    await this.searchDb.close();
  }
}
