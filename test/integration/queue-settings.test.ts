import { Queue } from 'bullmq';
import { JOBS_QUEUE, WEBHOOK_QUEUE, queuePrefix } from '../../src/redis/queues';
import Redis from 'ioredis';
import { EVENTS_MAX_LEN, FINISHED_JOBS_REMOVED, queueOptions } from '../../src/redis/queue-options';
import { startApp, TestApp } from '../support/app';
import { unique } from '../support/factories';

/** BullMQ's cheap settings: finished jobs removed, events stream bounded, for every queue the app builds. */
let t: TestApp;
let redis: Redis;
beforeAll(async () => {
  t = await startApp();
  redis = new Redis(t.config.redisUrl);
});
afterAll(async () => {
  await redis.quit();
  await t.close();
});

describe('queue settings', () => {
  it.each([WEBHOOK_QUEUE, JOBS_QUEUE])('the %s queue keeps its events stream bounded (queue meta)', async (name) => {
    const metaKey = `${queuePrefix(t.config)}:${name}:meta`;
    // Each Queue instance writes the meta hash once connected; poll for the app's queues (producer and dashboard).
    let maxLen: string | null = null;
    for (let i = 0; i < 100 && maxLen === null; i++) {
      maxLen = await redis.hget(metaKey, 'opts.maxLenEvents');
      if (maxLen === null) await new Promise((r) => setTimeout(r, 50));
    }
    expect(Number(maxLen)).toBe(EVENTS_MAX_LEN);
    expect(EVENTS_MAX_LEN).toBeLessThan(10_000); // BullMQ's default
  });

  it('the shared options remove finished jobs by default', () => {
    const options = queueOptions(redis, 'x');
    expect(options.defaultJobOptions).toMatchObject(FINISHED_JOBS_REMOVED);
    expect(options.streams?.events?.maxLen).toBe(EVENTS_MAX_LEN);
  });

  it('an events stream stays near its bound however many jobs pass, and jobs are added to leave when finished', async () => {
    const connection = new Redis(t.config.redisUrl, { maxRetriesPerRequest: null });
    const name = unique('queue-settings');
    const queue = new Queue(name, queueOptions(connection, queuePrefix(t.config)));
    try {
      for (let i = 0; i < 5; i++) await queue.addBulk(Array.from({ length: 600 }, (_, j) => ({ name: 'n', data: { i, j } })));
      const xlen = await redis.xlen(`${queuePrefix(t.config)}:${name}:events`);
      // Redis trims whole stream nodes (MAXLEN ~), so the length may pass the bound by one node (100 entries).
      expect(xlen).toBeGreaterThanOrEqual(EVENTS_MAX_LEN);
      expect(xlen).toBeLessThanOrEqual(EVENTS_MAX_LEN + 200);
      const [job] = await queue.getWaiting(0, 0);
      expect(job.opts).toMatchObject(FINISHED_JOBS_REMOVED);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
      connection.disconnect();
    }
  });
});
