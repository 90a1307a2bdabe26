import type { QueueOptions, RedisOptions } from 'bullmq';
import type { AppConfig } from '../config/app-config';
import { queueOptions } from './queue-options';

/** Every BullMQ queue of the service, named once: producers, processors, the dashboard and tests use these. */
export const JOBS_QUEUE = 'jobs';
export const WEBHOOK_QUEUE = 'webhook-deliveries';
export const SEARCH_ENCODER_QUEUE = 'search-encoder';
export const SEARCH_EMBEDDINGS_QUEUE = 'search-embeddings';

/** BullMQ prefix of this deployment (or test file), so queues of different runs sharing a Redis never mix. */
export function queuePrefix(config: Pick<AppConfig, 'redisPrefix'>): string {
  return `${config.redisPrefix}:bull`;
}

/**
 * The connection every queue is built with (BullModule.forRootAsync). Producers fail fast instead of queueing commands
 * while Redis is away: the queues only carry ids of work PostgreSQL holds, so a failed enqueue loses nothing, a sweep
 * enqueues it again. Workers take the same options with unlimited retries per command (`workerConnection`).
 */
export function sharedQueueOptions(config: Pick<AppConfig, 'redisUrl' | 'redisPrefix'>): QueueOptions {
  const connection = { url: config.redisUrl, maxRetriesPerRequest: 1, connectTimeout: 2000, retryStrategy: (times: number) => Math.min(times * 200, 2000) };
  return queueOptions(connection, queuePrefix(config));
}

/**
 * A worker waits out a Redis outage rather than failing its commands (moving a job on, renewing a lock): BullMQ asks
 * for `maxRetriesPerRequest: null` on the connections a worker uses.
 */
export function workerConnection(connection: RedisOptions): RedisOptions {
  return { ...connection, maxRetriesPerRequest: null };
}
