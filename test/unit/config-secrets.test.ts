import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/config';

/** Finding 1: a known secret must never be usable in production, and the compose file must not ship one. */
describe('secrets in production', () => {
  const known = [
    'dev-only-webhook-secret-key-change-me-in-production', // the development default
    'change-me-to-a-long-random-secret-of-32-chars-or-more', // the compose file's old default
  ];

  it.each(known)('refuses the known default WEBHOOK_SECRET_KEY %s', (secret) => {
    expect(() => loadConfig({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: secret })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: secret })).toThrow(/^WEBHOOK_SECRET_KEY .*known default/);
  });

  it('refuses a missing WEBHOOK_SECRET_KEY and accepts a real one', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/^WEBHOOK_SECRET_KEY is required/);
    const signingKey = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(
      loadConfig({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: 'k3P9vQx2LmZ8rT4wYb6nHc1JdF5gS7aE', CREDENTIAL_SIGNING_KEY: signingKey }).webhook.secretKey,
    ).toHaveLength(32);
  });
});

describe('docker-compose.yml', () => {
  const compose = readFileSync(join(__dirname, '..', '..', 'docker-compose.yml'), 'utf8');

  // The app's secrets come from the environment (or .env) with no default; an empty one is refused by the app's own
  // start-up check in production, so compose never starts the API with a secret anybody could know.
  it.each(['WEBHOOK_SECRET_KEY', 'CREDENTIAL_SIGNING_KEY'])('has no default for %s', (name) => {
    const uses = [...compose.matchAll(new RegExp(`\\$\\{${name}([^}]*)\\}`, 'g'))].map((m) => m[1]);
    expect(uses.length).toBeGreaterThan(0);
    for (const rest of uses) expect(rest).toMatch(/^(:?\?.*)?$/);
    expect(compose).not.toMatch(new RegExp(`^\\s*${name}:\\s*(?!\\$\\{)\\S`, 'm'));
  });

  it('ships no database password: PostgreSQL listens on 127.0.0.1 only, with trust auth for local development', () => {
    expect(compose).not.toMatch(/POSTGRES_PASSWORD:\s*\S/);
    expect(compose).toMatch(/POSTGRES_HOST_AUTH_METHOD: trust/);
    expect(compose).toMatch(/['"]127\.0\.0\.1:\$\{PG_PORT:-5432\}:5432['"]/);
  });
});

/** Issue 26, finding 6: production accepted weak settings. */
describe('weak settings in production', () => {
  const signingKey = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const strong = 'k3P9vQx2LmZ8rT4wYb6nHc1JdF5gS7aE';
  const production = (env: Record<string, string>) =>
    loadConfig({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: strong, CREDENTIAL_SIGNING_KEY: signingKey, PUBLIC_BASE_URL: 'https://api.example.com', ...env });

  it.each([
    ['32 × a', 'a'.repeat(32)],
    ['64 × 0', '0'.repeat(64)],
    ['a short pattern repeated', 'abcd'.repeat(16)],
    ['a keyboard walk', 'qwertyuiqwertyuiqwertyuiqwertyui'],
  ])('refuses a low-entropy WEBHOOK_SECRET_KEY (%s)', (_label, secret) => {
    expect(() => production({ WEBHOOK_SECRET_KEY: secret })).toThrow(/^WEBHOOK_SECRET_KEY .*(random|entropy)/);
  });

  it.each([
    ['openssl rand -hex 32', '9f2c4b7e1a0d83f65c29e4b1d7a0c3f8e6b5d4a29c1f07e3b8d6a5c4f2e1d0b9'],
    ['openssl rand -hex 16', '3fa85f6457174562b3fc2c963f66afa6'],
    ['openssl rand -base64 32', 'q1x8Zb5+Kc0tV3mN7yR2wP4sL9hJ6gF1dA0eU8iO3kQ='],
  ])('accepts a random WEBHOOK_SECRET_KEY (%s)', (_label, secret) => {
    expect(production({ WEBHOOK_SECRET_KEY: secret }).webhook.secretKey).toBe(secret);
  });

  it('refuses an http:// PUBLIC_BASE_URL unless the TLS-at-a-proxy opt-out is set, and reports the opt-out', () => {
    expect(() => production({ PUBLIC_BASE_URL: 'http://api.example.com' })).toThrow(/^PUBLIC_BASE_URL must use https/);
    const config = production({ PUBLIC_BASE_URL: 'http://api.example.com', ALLOW_HTTP_PUBLIC_BASE_URL: 'true' });
    expect(config.publicBaseUrl).toBe('http://api.example.com');
    expect(config.developmentDefaults.join('\n')).toMatch(/ALLOW_HTTP_PUBLIC_BASE_URL/);
    expect(() => production({})).not.toThrow();
  });

  it('refuses a METRICS_TOKEN under 32 characters or of low entropy, and accepts a random one', () => {
    expect(() => production({ METRICS_TOKEN: 'metrics-token-for-tests' })).toThrow(/^METRICS_TOKEN must be at least 32 characters/);
    expect(() => production({ METRICS_TOKEN: 'x'.repeat(40) })).toThrow(/^METRICS_TOKEN .*(random|entropy)/);
    expect(production({ METRICS_TOKEN: strong }).metricsToken).toBe(strong);
  });

  it('keeps development permissive (short metrics token, http base URL)', () => {
    const config = loadConfig({ NODE_ENV: 'development', METRICS_TOKEN: 'short', PUBLIC_BASE_URL: 'http://localhost:3000' });
    expect(config.metricsToken).toBe('short');
  });
});
