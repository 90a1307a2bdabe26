import { generateKeyPairSync } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { startApp } from '../../support/app';

/** Finding 11: with NODE_ENV unset the service ran on development defaults (a known key, private webhook targets) silently. */
// Every app of this file writes its logs to one stream,
// and each test reads the lines written since its app started.
let text = '';
const stream = new PassThrough();
stream.on('data', (chunk) => (text += chunk.toString()));

async function startupLog(env: Record<string, string>): Promise<Array<Record<string, any>>> {
  const from = text.length;
  const t = await startApp({ LOG_LEVEL: 'info', RUN_WORKER: 'false', ...env }, stream);
  await t.http.get('/api/webinars/public'); // a logged request: proof the stream receives this app's lines
  for (let i = 0; i < 50 && !text.slice(from).includes('request completed'); i++) await new Promise((r) => setTimeout(r, 20));
  await t.close();
  return text
    .slice(from)
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

const SIGNING_KEY = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

const warningsIn = (lines: Array<Record<string, any>>) => lines.filter((l) => l.level >= 40 && /development defaults/i.test(l.msg ?? ''));

describe('start-up warning about development defaults', () => {
  it('names every development default in force when NODE_ENV is unset', async () => {
    const [warning, ...more] = warningsIn(
      await startupLog({ NODE_ENV: '', WEBHOOK_SECRET_KEY: '', CREDENTIAL_SIGNING_KEY: '', WEBHOOK_ALLOW_PRIVATE_TARGETS: '', PUBLIC_BASE_URL: '' }),
    );
    expect(more).toHaveLength(0);
    expect(warning.msg).toMatch(/^DEVELOPMENT DEFAULTS IN FORCE/);
    expect(warning.development_defaults).toEqual([
      expect.stringMatching(/^NODE_ENV is unset/),
      expect.stringMatching(/^WEBHOOK_SECRET_KEY is the development key/),
      expect.stringMatching(/^CREDENTIAL_SIGNING_KEY is unset/),
      expect.stringMatching(/^webhooks may target private and loopback addresses/),
      expect.stringMatching(/^PUBLIC_BASE_URL is unset/),
    ]);
  });

  it('names a risky setting even in production', async () => {
    const [warning] = warningsIn(
      await startupLog({
        NODE_ENV: 'production',
        WEBHOOK_SECRET_KEY: 'k3P9vQx2LmZ8rT4wYb6nHc1JdF5gS7aE-prod',
        CREDENTIAL_SIGNING_KEY: SIGNING_KEY,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        PUBLIC_BASE_URL: 'https://api.example.com',
      }),
    );
    expect(warning.development_defaults).toEqual([expect.stringMatching(/^webhooks may target private and loopback addresses/)]);
  });

  it('stays quiet when production is configured', async () => {
    const lines = await startupLog({
      NODE_ENV: 'production',
      WEBHOOK_SECRET_KEY: 'k3P9vQx2LmZ8rT4wYb6nHc1JdF5gS7aE-prod',
      CREDENTIAL_SIGNING_KEY: SIGNING_KEY,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false',
      PUBLIC_BASE_URL: 'https://api.example.com',
    });
    expect(lines.some((l) => l.msg === 'request completed')).toBe(true);
    expect(warningsIn(lines)).toHaveLength(0);
  });
});
