import { randomInt } from 'node:crypto';
import { startApp, TestApp } from '../../support/app';
import { unique } from '../../support/factories';

/**
 * With TRUST_PROXY trusting every hop, a client that sends its own X-Forwarded-For would choose the address every
 * per-IP limit counts. Behind one balancer that appends the real address, only the last entry counts.
 */
const register = (t: TestApp, forwardedFor: string) =>
  t.http.post('/api/partners/register', { name: unique('Spoofer'), email: `${unique('s')}@example.com` }, { headers: { 'X-Forwarded-For': forwardedFor } });

async function spoofedRegistrations(t: TestApp): Promise<number[]> {
  // The balancer appends the address it saw (always the same client here) after whatever the client sent.
  const real = `203.0.${randomInt(0, 255)}.${randomInt(1, 255)}`;
  const statuses: number[] = [];
  for (let i = 0; i < 7; i++) statuses.push((await register(t, `198.51.100.${randomInt(1, 255)}, 10.9.${i}.${randomInt(1, 255)}, ${real}`)).status);
  return statuses;
}

describe('per-IP limits behind a balancer', () => {
  it('count the address the one trusted hop saw, whatever the client puts in X-Forwarded-For (TRUST_PROXY=1)', async () => {
    const t = await startApp({ TRUST_PROXY: '1', REGISTRATION_LIMIT_PER_HOUR: '5' });
    try {
      expect(await spoofedRegistrations(t)).toEqual([201, 201, 201, 201, 201, 429, 429]);
    } finally {
      await t.close();
    }
  });

  it('count the address the listed proxy saw (TRUST_PROXY=127.0.0.1)', async () => {
    const t = await startApp({ TRUST_PROXY: '127.0.0.1', REGISTRATION_LIMIT_PER_HOUR: '5' });
    try {
      expect(await spoofedRegistrations(t)).toEqual([201, 201, 201, 201, 201, 429, 429]);
    } finally {
      await t.close();
    }
  });
});
