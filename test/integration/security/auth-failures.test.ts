import { randomInt } from 'node:crypto';
import { generateApiKey } from '../../../src/api-keys/api-key';
import { startApp, TestApp } from '../../support/app';
import { createPartner, CreatedPartner } from '../../support/factories';

/**
 * Failed key authentications are limited per client, to slow key guessing. Past 30 in a minute from one client address, a request
 * whose key fails gets 429 rate_limited with Retry-After instead of 401, for the rest of that minute; requests
 * with valid keys are never affected. Each test uses its own client address (TRUST_PROXY=1, X-Forwarded-For).
 */
let t: TestApp;
let p: CreatedPartner;
beforeAll(async () => {
  t = await startApp({ TRUST_PROXY: '1', AUTH_FAILURE_LIMIT_PER_MINUTE: '30' });
  p = await createPartner(t, { plan: 'growth' });
});
afterAll(() => t.close());

const address = () => `198.18.${randomInt(0, 255)}.${randomInt(1, 255)}`;
const from = (ip: string, key: string) => t.http.get('/api/courses?limit=1', { key, headers: { 'X-Forwarded-For': ip } });

describe('failed key authentications per client address', () => {
  it('answers 401 for the first 30 forged keys in a minute, then 429 with Retry-After', async () => {
    const ip = address();
    for (let i = 0; i < 30; i++) {
      const res = await from(ip, generateApiKey('live').key);
      expect({ i, status: res.status, code: res.body.error.code }).toEqual({ i, status: 401, code: 'invalid_api_key' });
    }
    for (const key of [generateApiKey('live').key, 'eck_test_malformed']) {
      const res = await from(ip, key);
      expect(res.status).toBe(429);
      expect(res.body.error.code).toBe('rate_limited');
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }
  });

  it('never affects a valid key from the same address, nor forged keys from another address', async () => {
    const ip = address();
    for (let i = 0; i < 32; i++) await from(ip, generateApiKey('test').key);
    expect((await from(ip, generateApiKey('test').key)).status).toBe(429);
    const valid = await from(ip, p.key);
    expect(valid.status).toBe(200);
    expect((await from(address(), generateApiKey('test').key)).status).toBe(401);
  });
});
