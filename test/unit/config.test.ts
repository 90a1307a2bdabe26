import { ConfigError, loadConfig } from '../../src/config/config';

describe('configuration', () => {
  it('has defaults that work on a developer machine', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/partner_api',
      redisUrl: 'redis://127.0.0.1:6379/0',
      publicBaseUrl: 'http://localhost:3000',
      nodeEnv: 'development',
    });
    expect(c.webhook.allowPrivateTargets).toBe(true);
    expect(c.webhook.timeoutMs).toBe(10_000);
    expect(c.webhook.retryDelaysMs.length).toBeGreaterThanOrEqual(6);
  });

  it('refuses private webhook targets by default in production and needs a real secret key', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow('WEBHOOK_SECRET_KEY is required');
    const c = loadConfig({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: 'x'.repeat(40) });
    expect(c.webhook.allowPrivateTargets).toBe(false);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'not a url' }, 'REDIS_URL'],
    [{ PUBLIC_BASE_URL: 'ftp://x' }, 'PUBLIC_BASE_URL'],
    [{ NODE_ENV: 'staging' }, 'NODE_ENV'],
    [{ WEBHOOK_RETRY_DELAYS_MS: '100,abc' }, 'WEBHOOK_RETRY_DELAYS_MS'],
    [{ WEBHOOK_TIMEOUT_MS: '5' }, 'WEBHOOK_TIMEOUT_MS'],
    [{ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'maybe' }, 'WEBHOOK_ALLOW_PRIVATE_TARGETS'],
    [{ SEARCH_EMBEDDINGS_URL: 'nope' }, 'SEARCH_EMBEDDINGS_URL'],
    [{ DATABASE_POOL_SIZE: '0' }, 'DATABASE_POOL_SIZE'],
    [{ TRUST_PROXY: 'sometimes' }, 'TRUST_PROXY'],
  ])('names the bad variable %j', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^${name}`));
  });

  it('parses the webhook retry schedule and strips a trailing slash from PUBLIC_BASE_URL', () => {
    const c = loadConfig({ WEBHOOK_RETRY_DELAYS_MS: '300, 300,300', PUBLIC_BASE_URL: 'https://api.example.com/' });
    expect(c.webhook.retryDelaysMs).toEqual([300, 300, 300]);
    expect(c.publicBaseUrl).toBe('https://api.example.com');
  });
});
