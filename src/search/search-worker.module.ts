import { Module } from '@nestjs/common';
import { SearchEmbeddingsWorker } from './search-embeddings.worker';

/** The search feature's background work: embedding courses with the hosted model. */
@Module({ providers: [SearchEmbeddingsWorker], exports: [SearchEmbeddingsWorker] })
export class SearchWorkerModule {}
