import { startApp, TestApp } from '../support/app';
import { createPartner, CreatedPartner, unique } from '../support/factories';
import { TcpProxy } from '../support/tcp-proxy';
import { ledgerOf } from './enrollment.helpers';

jest.setTimeout(90_000);

/**
 * Issue 26, finding 15: during a PostgreSQL freeze a keyed top-up got 503; its COMMIT went through when PostgreSQL
 * resumed, the key's row kept no response, and every retry got 409 idempotency_request_in_progress for the key's 24
 * hours. Here PostgreSQL acts on the COMMIT but its acknowledgement is held by the proxy for 6 s.
 */
const pg = new TcpProxy('127.0.0.1', 5432);
let t: TestApp;
let p: CreatedPartner;

beforeAll(async () => {
  const db = new URL(process.env.DATABASE_URL!);
  db.port = String(await pg.start());
  t = await startApp({ DATABASE_URL: db.toString(), RUN_WORKER: 'false', REQUEST_TIMEOUT_MS: '3000' });
  p = await createPartner(t, { plan: 'enterprise' });
});
afterAll(async () => {
  await t.close();
  await pg.stop();
});

describe('a keyed write whose COMMIT acknowledgement was lost', () => {
  it('is settled once PostgreSQL answers: a retry gets the original response and the write is applied once', async () => {
    const user = await p.http.post('/api/users', { external_user_id: unique('ext'), name: 'Learner', email: 'l@example.com' });
    expect(user.status).toBe(201);
    const key = unique('idem');
    const topUp = () => p.http.post('/api/credits/topup', { user_id: user.body.data.id, amount: 7 }, { headers: { 'Idempotency-Key': key } });

    pg.freezeAfter('COMMIT\0');
    const first = await topUp();
    expect(first.status).toBe(503);
    await new Promise((r) => setTimeout(r, 3000));
    pg.resume();

    // Within a few seconds of PostgreSQL answering, a retry gets the top-up's own response.
    let retry = await topUp();
    const deadline = Date.now() + 20_000;
    while ((retry.status === 409 || retry.status === 503) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      retry = await topUp();
    }
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.data).toMatchObject({ user_id: user.body.data.id, amount: 7 });
    expect(await ledgerOf(t.db, user.body.data.id)).toEqual({ balance: 7, sum: 7, rows: 1 });
  });
});
