import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { embedPendingCourses } from './embedding-indexer';
import { EmbeddingsClient } from './embeddings.client';
import { EMBEDDINGS_CLIENT } from './search.providers';

export const EMBED_PENDING_JOB = 'embed-pending-courses';

/** Embeds the courses whose vectors are missing or stale; failures are thrown so BullMQ retries with back-off. */
@Injectable()
export class EmbedPendingCoursesJob {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(EMBEDDINGS_CLIENT) private readonly client: EmbeddingsClient,
  ) {}

  async process(): Promise<{ embedded: number }> {
    return { embedded: await embedPendingCourses(this.db, this.client) };
  }
}
