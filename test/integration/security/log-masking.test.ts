import { PassThrough } from 'node:stream';
import { generateApiKey } from '../../../src/api-keys/api-key';
import { AppLogger } from '../../../src/logging';
import { startApp, TestApp } from '../../support/app';
import { createPartner, CreatedPartner } from '../../support/factories';

/** Finding 9: API keys sent in query strings (and anywhere else a log line can hold them) were logged verbatim. */
let t: TestApp;
let p: CreatedPartner;
let logs = '';
beforeAll(async () => {
  const stream = new PassThrough();
  stream.on('data', (chunk) => (logs += chunk.toString()));
  t = await startApp({ LOG_LEVEL: 'info' }, stream);
  p = await createPartner(t, { plan: 'growth' });
});
afterAll(() => t.close());

/** Waits until the log holds a line with this request id (pino writes after the response). */
async function logLinesOf(requestId: string): Promise<string[]> {
  for (let i = 0; i < 50 && !logs.includes(requestId); i++) await new Promise((r) => setTimeout(r, 20));
  return logs.split('\n').filter((line) => line.includes(requestId));
}

const KEY_SHAPE = /eck_(test|live)_[0-9A-Za-z]{20,}/;

describe('API keys in logs', () => {
  it.each([
    ['the query string', (key: string) => ({ path: `/api/courses?limit=1&api_key=${key}`, headers: {} })],
    ['a query parameter of any name', (key: string) => ({ path: `/api/courses?limit=1&q=${key}`, headers: {} })],
    ['the path', (key: string) => ({ path: `/api/courses/${key}`, headers: {} })],
    ['a logged header', (key: string) => ({ path: '/api/courses?limit=1', headers: { 'User-Agent': `curl/8.0 (${key})` } })],
  ])('are masked when sent in %s, with their display prefix kept', async (_where, request) => {
    for (const key of [p.key, generateApiKey('live').key]) {
      const { path, headers } = request(key);
      const requestId = `req-mask-${Math.random().toString(36).slice(2)}`;
      await fetch(`${t.baseUrl}${path}`, { headers: { 'X-API-Key': p.key, 'X-Request-Id': requestId, ...headers } });
      const lines = await logLinesOf(requestId);
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) {
        expect(line).not.toContain(key);
        expect(line).not.toMatch(KEY_SHAPE);
      }
      expect(lines.join('\n')).toContain(key.slice(0, 14));
    }
  });

  it('are masked in logged bodies and error objects too', async () => {
    const key = generateApiKey('live').key;
    const marker = `mask-body-${Math.random().toString(36).slice(2)}`;
    const logger = t.app.get(AppLogger).pino;
    logger.warn(
      { marker, body: { note: `my key is ${key}`, nested: [{ token: key }] }, err: { message: `bad ${key}`, parameters: [key] } },
      `body carried ${key}`,
    );
    const lines = await logLinesOf(marker);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain(key);
    expect(lines[0]).not.toMatch(KEY_SHAPE);
  });
});
