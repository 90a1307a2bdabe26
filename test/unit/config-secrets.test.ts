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
