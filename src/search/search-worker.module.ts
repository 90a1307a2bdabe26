import { Module } from '@nestjs/common';
import { SearchEmbeddingsWorker } from './search-embeddings.worker';
import { SearchEncoderWorker } from './search-encoder.worker';

/** The search feature's background work: encoding course texts with the sentence encoder, embedding them with the hosted model. */
@Module({ providers: [SearchEmbeddingsWorker, SearchEncoderWorker], exports: [SearchEmbeddingsWorker, SearchEncoderWorker] })
export class SearchWorkerModule {}
