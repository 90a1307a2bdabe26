import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Module, Provider } from '@nestjs/common';
import { AppConfig } from '../config/config';
import { SEARCH_EMBEDDINGS_QUEUE, SEARCH_ENCODER_QUEUE } from '../redis/queues';
import { EmbedPendingCoursesJob } from './embed-pending-courses.job';
import { SearchEmbeddingsProcessor } from './search-embeddings.processor';
import { SearchEncoderProcessor } from './search-encoder.processor';
import { SearchModule } from './search.module';

/**
 * The search feature's background work: encoding course texts with the sentence encoder (SEARCH_SENTENCE_ENCODER),
 * embedding them with the hosted model (SEARCH_EMBEDDINGS_URL). A queue and its processor exist only when their
 * setting is on, so a process with both off holds no connection for them.
 */
@Module({})
export class SearchWorkerModule {
  static register(search: AppConfig['search']): DynamicModule {
    const queues: Array<{ name: string }> = [];
    const providers: Provider[] = [];
    if (search.sentenceEncoder) {
      queues.push({ name: SEARCH_ENCODER_QUEUE });
      providers.push(SearchEncoderProcessor);
    }
    if (search.embeddingsUrl) {
      queues.push({ name: SEARCH_EMBEDDINGS_QUEUE });
      providers.push(EmbedPendingCoursesJob, SearchEmbeddingsProcessor);
    }
    return {
      module: SearchWorkerModule,
      imports: [SearchModule, ...(queues.length ? [BullModule.registerQueue(...queues)] : [])],
      providers,
    };
  }
}
