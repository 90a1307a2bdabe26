import type { AppConfig } from '../../src/config/config';
import { RedisService } from '../../src/redis/redis.service';
import { AttemptClaims } from '../../src/webhooks/worker/attempt-claims';

// Attempt claims against the real Redis: claims made together go out as one script call, and each key must still be
// taken by exactly one attempt and freed only by its holder.
describe('AttemptClaims', () => {
  const config = {
    redisUrl: process.env.REDIS_URL,
    redisPrefix: `${process.env.REDIS_PREFIX}:claims-${Date.now()}`,
    webhook: { timeoutMs: 1000 },
  } as unknown as AppConfig;
  let redis: RedisService;

  beforeAll(async () => {
    redis = new RedisService(config);
    await redis.ready();
  });

  afterAll(async () => {
    await redis.onApplicationShutdown();
  });

  // Two worker processes: each has its own token.
  const processes = () => [new AttemptClaims(redis, config), new AttemptClaims(redis, config)];

  it('gives each delivery to one attempt, also when claims of the same batch ask for it twice', async () => {
    const [first, second] = processes();
    const taken = await Promise.all([first.claim('whd_a'), first.claim('whd_a'), first.claim('whd_b'), second.claim('whd_b'), second.claim('whd_c')]);
    expect(taken).toEqual([true, false, true, false, true]);
    // The claim lasts the lease: twice the request time-out and 30 s.
    const ttl = await redis.client.pttl(redis.key('webhook-attempt', 'whd_a'));
    expect(ttl).toBeGreaterThan(30_000);
    expect(ttl).toBeLessThanOrEqual(32_000);
  });

  it('frees only its own claims: another process’s stay until their holder frees them', async () => {
    const [first, second] = processes();
    expect(await Promise.all([first.claim('whd_d'), second.claim('whd_e')])).toEqual([true, true]);

    await Promise.all([second.free('whd_d'), first.free('whd_e')]);
    expect(await Promise.all([second.claim('whd_d'), first.claim('whd_e')])).toEqual([false, false]);

    await Promise.all([first.free('whd_d'), second.free('whd_e')]);
    expect(await Promise.all([second.claim('whd_d'), first.claim('whd_e')])).toEqual([true, true]);
  });

  it('rejects a claim when Redis does not answer, and freeing then does not throw', async () => {
    const down = new RedisService({ ...config, redisUrl: 'redis://127.0.0.1:1/0' });
    const claims = new AttemptClaims(down, config);
    try {
      await expect(claims.claim('whd_f')).rejects.toThrow();
      await expect(claims.free('whd_f')).resolves.toBeUndefined();
    } finally {
      down.client.disconnect();
    }
  });
});
