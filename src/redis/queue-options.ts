import type { ConnectionOptions, QueueOptions } from 'bullmq';

/**
 * BullMQ's events stream (`<queue>:events`) gets an entry at every job state change and is trimmed to this length
 * (approximately, as Redis trims whole stream nodes). Nothing of ours reads it beyond the dashboard's recent history;
 * BullMQ's default keeps 10,000 entries per queue.
 */
export const EVENTS_MAX_LEN = 1000;

/**
 * Finished jobs leave Redis at once: PostgreSQL holds every job's and delivery's history, and a job id BullMQ still
 * keeps (completed or failed) could not be enqueued again by a sweep. Each add() states these too; the defaults
 * cover any job added without them.
 */
export const FINISHED_JOBS_REMOVED = { removeOnComplete: true, removeOnFail: true } as const;

/**
 * Options every Queue of ours is built with (the app's through sharedQueueOptions in queues.ts, the dashboard's on its
 * own connection). The events stream's bound lives in the queue's meta hash, which each Queue instance writes when it
 * connects, so producers, workers' queues and the dashboard must all agree on it.
 */
export function queueOptions(connection: ConnectionOptions, prefix: string): QueueOptions {
  return { connection, prefix, streams: { events: { maxLen: EVENTS_MAX_LEN } }, defaultJobOptions: { ...FINISHED_JOBS_REMOVED } };
}
