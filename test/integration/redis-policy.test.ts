import { PassThrough } from 'node:stream';
import { startApp } from '../support/app';
import { RedisServer } from '../support/redis-server';

// Contract section 20: the service warns at start-up when Redis may evict keys. One log stream for the file: the
// pino logger of the first app started in a process is shared by the next ones.
let logs = '';
const stream = new PassThrough();
stream.on('data', (chunk) => (logs += chunk.toString()));

async function startupLogs(redisUrl: string): Promise<string> {
  logs = '';
  const app = await startApp({ REDIS_URL: redisUrl, RUN_WORKER: 'false', LOG_LEVEL: 'info' }, stream);
  await app.close();
  return logs;
}

describe('operators are told what Redis needs', () => {
  it('warns at start-up when Redis may evict keys', async () => {
    const evicting = await RedisServer.start(['--maxmemory', '64mb', '--maxmemory-policy', 'allkeys-lru']);
    try {
      const lines = (await startupLogs(evicting.url)).split('\n').filter((l) => l.includes('may evict keys'));
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0])).toMatchObject({
        level: 40,
        maxmemory_policy: 'allkeys-lru',
        msg: expect.stringContaining('set maxmemory-policy noeviction'),
      });
    } finally {
      await evicting.stop();
    }
  });

  it('does not warn when Redis never evicts, and notes when it keeps no data across restarts', async () => {
    const redis = await RedisServer.start(['--maxmemory-policy', 'noeviction']);
    try {
      const startup = await startupLogs(redis.url);
      expect(startup).toContain('RedisService');
      expect(startup).not.toContain('may evict keys');
      expect(startup).toContain('Redis keeps no data across restarts');
    } finally {
      await redis.stop();
    }
  });
});
