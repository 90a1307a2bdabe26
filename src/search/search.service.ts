import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { RedisService } from '../redis/redis.service';
import { SearchResponseDto } from './dto/search.dto';
import { SearchDatabase } from './search-database';
import { SearchEngine } from './search-engine';
import { EmbeddedSemantic } from './semantic/embedded-semantic';
import { SentenceRanker } from './encoder/sentence-ranker';
import { EncoderIndexStatus, SentenceVectorStore } from './encoder/vector-store';
import { CATALOGUE_CHANGED } from '../redis/channels';
import { EMBEDDED_SEMANTIC, SENTENCE_RANKER } from './search.providers';

/**
 * POST /api/search: lexical search fused with the embedded semantic engine (on by default, SEARCH_EMBEDDED_ENGINE),
 * the sentence encoder (on by default, SEARCH_SENTENCE_ENCODER) and the hosted model's ranking when
 * SEARCH_EMBEDDINGS_URL is set.
 */
@Injectable()
export class SearchService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(SearchService.name);

  constructor(
    private readonly engine: SearchEngine,
    private readonly searchDb: SearchDatabase,
    private readonly status: SentenceVectorStore,
    private readonly redis: RedisService,
    /** The embedded semantic engine, when on: its `ready` resolves once its first index is built. */
    @Inject(EMBEDDED_SEMANTIC) readonly embedded: EmbeddedSemantic | undefined,
    /** The sentence encoder, when on: its model loads and its course vectors are read in the background. */
    @Inject(SENTENCE_RANKER) readonly encoder: SentenceRanker | undefined,
  ) {}

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
    await Promise.all([this.encoder?.stop(), this.embedded?.stop()]);
    await this.searchDb.close();
  }
}
