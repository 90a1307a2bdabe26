import { generateKeyPairSync } from 'node:crypto';
import { ConfigError, loadConfig } from '../../src/config/config';

function ed25519Pem(): string {
  return generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
}

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
    expect(c.jobs.sweepIntervalMs).toBe(30_000);
    expect(loadConfig({ JOBS_SWEEP_INTERVAL_MS: '500' }).jobs.sweepIntervalMs).toBe(500);
    expect(c.requestTimeoutMs).toBe(5000);
    expect(c.webhook.sweepIntervalMs).toBe(30_000);
  });

  it('reads MEDIA_INTERNAL_URL, the address the other instances forward signalling to', () => {
    expect(loadConfig({}).media.internalUrl).toBeUndefined();
    expect(loadConfig({ MEDIA_INTERNAL_URL: 'http://10.0.0.5:3000/' }).media.internalUrl).toBe('http://10.0.0.5:3000');
    expect(() => loadConfig({ MEDIA_INTERNAL_URL: '10.0.0.5:3000' })).toThrow(ConfigError);
    expect(() => loadConfig({ MEDIA_INTERNAL_URL: 'ftp://10.0.0.5' })).toThrow('MEDIA_INTERNAL_URL must use http: or https:');
  });

  it('refuses private webhook targets by default in production and needs a real secret key', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow('WEBHOOK_SECRET_KEY is required');
    const c = loadConfig({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: 'k3P9vQx2LmZ8rT4wYb6nHc1JdF5gS7aE', CREDENTIAL_SIGNING_KEY: ed25519Pem() });
    expect(c.webhook.allowPrivateTargets).toBe(false);
  });

  describe('CREDENTIAL_SIGNING_KEY', () => {
    const production = { NODE_ENV: 'production', WEBHOOK_SECRET_KEY: 'k3P9vQx2LmZ8rT4wYb6nHc1JdF5gS7aE' };
    // RFC 8037, Appendix A.1: published, so it must never sign in production.
    const RFC_8037_KEY = JSON.stringify({
      kty: 'OKP',
      crv: 'Ed25519',
      d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A',
      x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
    });

    it('is required in production', () => {
      expect(() => loadConfig(production)).toThrow('CREDENTIAL_SIGNING_KEY is required in production');
      expect(() => loadConfig({ ...production, CREDENTIAL_SIGNING_KEY: '  ' })).toThrow('CREDENTIAL_SIGNING_KEY is required in production');
    });

    it('refuses the published example key in production (allowed in development)', () => {
      expect(() => loadConfig({ ...production, CREDENTIAL_SIGNING_KEY: RFC_8037_KEY })).toThrow('published example key');
      expect(loadConfig({ CREDENTIAL_SIGNING_KEY: RFC_8037_KEY }).credentials.signingKey?.x).toBe('11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo');
    });

    it('is optional in development (the database keeps a generated one)', () => {
      expect(loadConfig({}).credentials.signingKey).toBeNull();
    });

    it('accepts a PKCS#8 PEM, with real line breaks or written as \\n, and a JWK, all as the same private JWK', () => {
      const pem = ed25519Pem();
      const fromPem = loadConfig({ ...production, CREDENTIAL_SIGNING_KEY: pem }).credentials.signingKey!;
      expect(fromPem).toEqual({ kty: 'OKP', crv: 'Ed25519', x: expect.stringMatching(/^[\w-]{43}$/), d: expect.stringMatching(/^[\w-]{43}$/) });
      expect(loadConfig({ ...production, CREDENTIAL_SIGNING_KEY: pem.replace(/\n/g, '\\n') }).credentials.signingKey).toEqual(fromPem);
      expect(loadConfig({ ...production, CREDENTIAL_SIGNING_KEY: JSON.stringify(fromPem) }).credentials.signingKey).toEqual(fromPem);
    });

    it.each([
      ['garbage', 'not a key'],
      ['an RSA key', generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()],
      ['an EC key', generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()],
      ['a public key', generateKeyPairSync('ed25519').publicKey.export({ format: 'pem', type: 'spki' }).toString()],
      ['a JWK without its private part', JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' })],
    ])('refuses %s with a message naming the expected format', (_, value) => {
      expect(() => loadConfig({ CREDENTIAL_SIGNING_KEY: value })).toThrow(/CREDENTIAL_SIGNING_KEY must be an Ed25519 private key/);
    });
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
    [{ JOBS_SWEEP_INTERVAL_MS: '10' }, 'JOBS_SWEEP_INTERVAL_MS'],
    [{ REQUEST_TIMEOUT_MS: '50' }, 'REQUEST_TIMEOUT_MS'],
    [{ WEBHOOK_SWEEP_INTERVAL_MS: 'often' }, 'WEBHOOK_SWEEP_INTERVAL_MS'],
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
