import { Logger, Provider } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { BoundedQueryable } from '../common/database';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { CoursesService } from '../courses/courses.service';
import { EmbeddingsClient } from './embeddings.client';
import { SENTENCE_MODEL } from './encoder/sentence-model';
import { SentenceRanker } from './encoder/sentence-ranker';
import { SentenceVectorStore } from './encoder/vector-store';
import { searchConnection } from './search-connection';
import { SearchEngine } from './search-engine';
import { SearchFacts } from './search-facts';
import { SearchLexicon } from './search-lexicon';
import { SemanticSearch } from './semantic-search';
import { EmbeddedSemantic, preparingSql } from './semantic/embedded-semantic';

/** Search's bounded connection to the app's pool (a BoundedQueryable: statement timeout and concurrency cap). */
export const SEARCH_DB = Symbol('SEARCH_DB');
/** The hosted model's client (SEARCH_EMBEDDINGS_URL), or undefined when none is configured. */
export const EMBEDDINGS_CLIENT = Symbol('EMBEDDINGS_CLIENT');
/** Ranking by the hosted model, or undefined. */
export const HOSTED_SEMANTIC = Symbol('HOSTED_SEMANTIC');
/** The embedded word-vector engine (SEARCH_EMBEDDED_ENGINE), or undefined when off. */
export const EMBEDDED_SEMANTIC = Symbol('EMBEDDED_SEMANTIC');
/** The sentence encoder's ranker (SEARCH_SENTENCE_ENCODER), or undefined when off. */
export const SENTENCE_RANKER = Symbol('SENTENCE_RANKER');
/** The published courses' filter facts in memory (when an embedded engine is on), or undefined. */
export const SEARCH_FACTS = Symbol('SEARCH_FACTS');

// The engines log under the service's name, as the searches they serve do.
const logger = new Logger('SearchService');
const DB = getDataSourceToken();

/**
 * Search's object graph, built by Nest from the configuration: the optional engines are providers whose value is
 * undefined when switched off, so SearchEngine and SearchService take what is there.
 */
export const SEARCH_PROVIDERS: Provider[] = [
  { provide: SearchLexicon, useFactory: () => SearchLexicon.load() },
  { provide: SEARCH_DB, useFactory: (db: DataSource) => searchConnection(db), inject: [DB] },
  { provide: SentenceVectorStore, useFactory: (db: DataSource) => new SentenceVectorStore(db, SENTENCE_MODEL), inject: [DB] },
  {
    provide: EMBEDDINGS_CLIENT,
    useFactory: ({ search: { embeddingsUrl, embeddingsModel, embeddingsApiKey } }: AppConfig) =>
      embeddingsUrl ? new EmbeddingsClient({ url: embeddingsUrl, model: embeddingsModel, apiKey: embeddingsApiKey }) : undefined,
    inject: [APP_CONFIG],
  },
  {
    provide: HOSTED_SEMANTIC,
    useFactory: (db: DataSource, client?: EmbeddingsClient) => (client ? new SemanticSearch(db, client) : undefined),
    inject: [DB, EMBEDDINGS_CLIENT],
  },
  {
    provide: EMBEDDED_SEMANTIC,
    useFactory: (config: AppConfig, db: DataSource, searchDb: BoundedQueryable, lexicon: SearchLexicon) =>
      config.search.embeddedEngine ? new EmbeddedSemantic(preparingSql(db), searchDb, lexicon.stopwords, logger) : undefined,
    inject: [APP_CONFIG, DB, SEARCH_DB, SearchLexicon],
  },
  {
    provide: SENTENCE_RANKER,
    useFactory: (config: AppConfig, db: DataSource) => (config.search.sentenceEncoder ? new SentenceRanker(db, logger) : undefined),
    inject: [APP_CONFIG, DB],
  },
  {
    provide: SEARCH_FACTS,
    useFactory: (config: AppConfig, searchDb: BoundedQueryable) =>
      config.search.embeddedEngine || config.search.sentenceEncoder ? new SearchFacts(searchDb) : undefined,
    inject: [APP_CONFIG, SEARCH_DB],
  },
  {
    provide: SearchEngine,
    useFactory: (
      searchDb: BoundedQueryable,
      lexicon: SearchLexicon,
      courses: CoursesService,
      embedded?: EmbeddedSemantic,
      hosted?: SemanticSearch,
      encoder?: SentenceRanker,
      facts?: SearchFacts,
    ) => new SearchEngine(searchDb, lexicon, courses, { embedded, hosted, encoder }, logger, facts),
    inject: [SEARCH_DB, SearchLexicon, CoursesService, EMBEDDED_SEMANTIC, HOSTED_SEMANTIC, SENTENCE_RANKER, SEARCH_FACTS],
  },
];
