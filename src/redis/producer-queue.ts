import { JobsOptions, Queue } from 'bullmq';

/** An enqueue gives up after this when Redis does not answer; the caller's sweep finds the work in PostgreSQL. */
const ENQUEUE_TIMEOUT_MS = 2000;

export interface ProducerJob<T> {
  name: string;
  data: T;
  opts: JobsOptions;
}

/**
 * Adds the jobs in one round trip, rejecting within ENQUEUE_TIMEOUT_MS when Redis does not answer (the queue's
 * connection fails fast too, queues.ts). `what` names them in the time-out error.
 */
export async function addBulkWithin<T>(queue: Queue<T>, jobs: Array<ProducerJob<T>>, what: string): Promise<void> {
  if (!jobs.length) return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Enqueuing ${what} timed out (Redis unreachable?)`)), ENQUEUE_TIMEOUT_MS);
  });
  try {
    await Promise.race([queue.addBulk(jobs as Parameters<Queue<T>['addBulk']>[0]), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
