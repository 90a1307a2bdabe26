import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { runMigrations } from '../../src/database/data-source';
import { dropDatabase, ensureDatabase } from '../../src/database/ensure-database';
import { startApp, TestApp } from '../support/app';
import { createPartner, CreatedPartner, unique } from '../support/factories';
import { sleep, waitFor, WebhookReceiver } from '../support/webhook-receiver';

jest.setTimeout(90_000);

/**
 * Issue 26, finding 13: after WEBHOOK_SECRET_KEY changed, deliveries of existing subscriptions stayed pending with 0
 * attempts and no last_error; only Bull Board showed the decryption failure. A private database keeps the delivery
 * sweep of the second app (under another key) away from the other files' deliveries.
 */
const database = (() => {
  const u = new URL(process.env.DATABASE_URL!);
  u.pathname = `${u.pathname}_key_change_${randomBytes(3).toString('hex')}`;
  return u.toString();
})();
const SECRET = 'receiver-signing-secret-0123456789';
const common = { DATABASE_URL: database, REDIS_PREFIX: `${process.env.REDIS_PREFIX}-keychange`, SEARCH_EMBEDDED_ENGINE: 'false' };
const OLD_KEY = 'Qm4xT8vK2pZ7wR1nY6cH3jD9fL5gS0aE';
const NEW_KEY = 'u7Fh2Kq9Zx4Lm1Rt8Vb3Nc6Wd0Ys5Pj2';
let receiver: WebhookReceiver;
let t: TestApp | undefined;
let partner: CreatedPartner;
let webhookId: string;
const path = `/${unique('hook')}`;
const lines: Array<{ msg?: string; level?: number }> = [];

beforeAll(async () => {
  receiver = await new WebhookReceiver().start();
  await ensureDatabase(database);
  await runMigrations(database);
  const before = await startApp({ ...common, RUN_WORKER: 'false', WEBHOOK_SECRET_KEY: OLD_KEY });
  try {
    partner = await createPartner(before, { plan: 'growth' });
    const res = await partner.http.post('/api/connect/webhooks', { url: receiver.url(path), events: ['user.registered'], secret: SECRET });
    expect(res.status).toBe(201);
    webhookId = res.body.data.id;
  } finally {
    await before.close();
  }
  const log = new PassThrough();
  log.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as { msg?: string });
  });
  t = await startApp({ ...common, RUN_WORKER: 'true', WEBHOOK_SECRET_KEY: NEW_KEY, WEBHOOK_SWEEP_INTERVAL_MS: '500', LOG_LEVEL: 'info' }, log);
  partner = { ...partner, http: t.http.withKey(partner.key) };
}, 90_000);
afterAll(async () => {
  await t?.close();
  await receiver?.stop();
  await dropDatabase(database);
});

describe('a signing secret the current WEBHOOK_SECRET_KEY cannot read', () => {
  it('is counted in a warning at start-up', () => {
    const warning = lines.find((l) => /cannot read/.test(l.msg ?? ''));
    expect(warning?.msg).toMatch(/^1 of 1 webhook subscriptions? (has|have) a signing secret the current WEBHOOK_SECRET_KEY cannot read/);
    expect(warning?.level).toBe(40);
  });

  it('is recorded on the delivery, with no attempt made and no secret material', async () => {
    const user = await partner.http.post('/api/users', { external_user_id: unique('ext'), name: 'Learner', email: 'l@example.com' });
    expect(user.status).toBe(201);
    const delivery = await waitFor(
      async () => {
        const list = await partner.http.get(`/api/connect/webhooks/${webhookId}/deliveries`);
        const found = (list.body.data.deliveries as Array<{ last_error: string | null; status: string; attempts: number }>).find((d) => d.last_error);
        return found;
      },
      20_000,
      'the delivery to record why it was not sent',
    );
    expect(delivery.status).toBe('pending');
    expect(delivery.attempts).toBe(0);
    expect(delivery.last_error).toMatch(/signing secret is unreadable/i);
    for (const secret of [SECRET, OLD_KEY, NEW_KEY]) expect(delivery.last_error).not.toContain(secret);
    await sleep(1000);
    expect(receiver.at(path)).toHaveLength(0);
  });
});
