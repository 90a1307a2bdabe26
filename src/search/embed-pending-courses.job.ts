import { DataSource } from 'typeorm';
import { embedPendingCourses } from './embedding-indexer';
import { EmbeddingsClient } from './embeddings.client';

export const SEARCH_EMBEDDINGS_QUEUE = 'search-embeddings';
export const EMBED_PENDING_JOB = 'embed-pending-courses';

/** Embeds the courses whose vectors are missing or stale; failures are thrown so BullMQ retries with back-off. */
export class EmbedPendingCoursesJob {
  constructor(
    private readonly db: DataSource,
    private readonly client: EmbeddingsClient,
  ) {}

  async process(): Promise<{ embedded: number }> {
    return { embedded: await embedPendingCourses(this.db, this.client) };
  }
}
