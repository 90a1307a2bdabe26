import { Queue } from 'bullmq';
import { WEBHOOK_QUEUE, queuePrefix } from '../../../src/redis/queues';
import Redis from 'ioredis';
import { startApp, TestApp } from '../../support/app';
import { createAdmin } from '../../support/factories';

/**
 * A browser resends HTTP Basic credentials with a cross-site form POST, so any page an operator opened
 * could make Bull Board add, retry or clean jobs. The board must refuse requests that come from another site.
 */
const basic = (key: string) => `Basic ${Buffer.from(`operator:${key}`).toString('base64')}`;

describe('Bull Board refuses cross-site writes', () => {
  let t: TestApp;
  let admin: { key: string };
  let redis: Redis;
  let queue: Queue;
  beforeAll(async () => {
    // No worker: jobs a forged request managed to add stay in the queue where the test can count them.
    t = await startApp({ RUN_WORKER: 'false' });
    admin = await createAdmin(t);
    redis = new Redis(t.config.redisUrl, { maxRetriesPerRequest: 1 });
    queue = new Queue(WEBHOOK_QUEUE, { connection: redis, prefix: queuePrefix(t.config) });
  });
  afterAll(async () => {
    await queue.close();
    redis.disconnect();
    await t.close();
  });

  const forged = async (name: string) => {
    const jobs = await queue.getJobs(['waiting', 'delayed', 'prioritized', 'active', 'completed', 'failed']);
    return jobs.filter((j) => j?.name === name);
  };

  it.each([
    [
      'a form POST from another site',
      { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site', 'Content-Type': 'application/x-www-form-urlencoded' },
      'name=csrf-form&data=x',
    ],
    [
      'a text/plain POST from another site',
      { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site', 'Content-Type': 'text/plain' },
      '{"name":"csrf-text"}',
    ],
    ['a form POST from a browser that sends no Origin', { 'Content-Type': 'application/x-www-form-urlencoded' }, 'name=csrf-noorigin'],
    ['a JSON POST from a sibling site', { 'Sec-Fetch-Site': 'same-site', 'Content-Type': 'application/json' }, '{"name":"csrf-samesite","data":{}}'],
  ])('refuses %s with 403 and adds no job', async (_label, headers, body) => {
    const jobName = /"?name"?[=:]"?([a-z-]+)/.exec(body)![1];
    const res = await fetch(`${t.baseUrl}/admin/queues/api/queues/${WEBHOOK_QUEUE}/add`, {
      method: 'POST',
      headers: { Authorization: basic(admin.key), ...headers },
      body,
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('origin_not_allowed');
    expect(await forged(jobName)).toHaveLength(0);
  });

  it("still serves the board itself, a script without Origin, and its own page's writes", async () => {
    const page = await fetch(`${t.baseUrl}/admin/queues`, { headers: { Authorization: basic(admin.key), 'Sec-Fetch-Site': 'none' } });
    expect(page.status).toBe(200);
    const script = await fetch(`${t.baseUrl}/admin/queues/api/queues/${WEBHOOK_QUEUE}/retry/failed`, { method: 'PUT', headers: { 'X-API-Key': admin.key } });
    expect(script.status).toBe(200);
    const own = await fetch(`${t.baseUrl}/admin/queues/api/queues/${WEBHOOK_QUEUE}/retry/failed`, {
      method: 'PUT',
      headers: { Authorization: basic(admin.key), Origin: t.baseUrl, 'Sec-Fetch-Site': 'same-origin' },
    });
    expect(own.status).toBe(200);
  });
});
