import { startApp, TestApp } from '../../support/app';
import { createKey, createPartner } from '../../support/factories';

/**
 * Issue 26, finding 2: plans limited webhook event types, not subscriptions, so one key created 120 subscriptions in
 * 3.5 s and one top-up then caused 121 outbound POSTs. Subscriptions per partner and mode are now capped by the
 * plan (the plans table's webhook_subscriptions: starter 2, growth 20, enterprise 100), 403 plan_limit_exceeded beyond.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(() => t.close());

const subscription = (i: number) => ({ url: `https://hooks.example.com/in/${i}`, events: ['credits.purchased'], secret: 'a-very-secret-signing-key' });

describe('webhook subscriptions per partner and mode are capped by plan', () => {
  it('reads the caps from the plans table: starter 2, growth 20, enterprise 100', async () => {
    const rows: Array<{ code: string; webhook_subscriptions: number }> = await t.db.query(`SELECT code, webhook_subscriptions FROM plans ORDER BY code`);
    expect(Object.fromEntries(rows.map((r) => [r.code, r.webhook_subscriptions]))).toEqual({ starter: 2, growth: 20, enterprise: 100 });
    const p = await createPartner(t, { plan: 'growth' });
    expect((await p.http.get('/api/partners/me')).body.data.plan_details.webhook_subscriptions).toBe(20);
  });

  it('lets a starter partner have 2, then answers 403 plan_limit_exceeded; a deleted one frees its place', async () => {
    const p = await createPartner(t, { plan: 'starter' });
    const first = await p.http.post('/api/connect/webhooks', subscription(1));
    expect(first.status).toBe(201);
    expect((await p.http.post('/api/connect/webhooks', subscription(2))).status).toBe(201);
    const third = await p.http.post('/api/connect/webhooks', subscription(3));
    expect(third.status).toBe(403);
    expect(third.body.error).toMatchObject({
      code: 'plan_limit_exceeded',
      details: { limit: 'webhook_subscriptions', allowed: 2, subscriptions: 2, plan: 'starter' },
    });
    expect((await p.http.delete(`/api/connect/webhooks/${first.body.data.id}`)).status).toBe(200);
    expect((await p.http.post('/api/connect/webhooks', subscription(3))).status).toBe(201);
  });

  it('holds under parallel creation: 30 at once on growth make exactly 20', async () => {
    const p = await createPartner(t, { plan: 'growth' });
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => p.http.post('/api/connect/webhooks', subscription(i))));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(20);
    expect(statuses.filter((s) => s === 403)).toHaveLength(10);
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM webhook_subscriptions WHERE partner_id = $1 AND mode = 'test'`, [p.partnerId]);
    expect(n).toBe(20);
  });

  it('counts per mode: the live key has places of its own', async () => {
    const p = await createPartner(t, { plan: 'starter' });
    for (let i = 0; i < 2; i++) expect((await p.http.post('/api/connect/webhooks', subscription(i))).status).toBe(201);
    const live = await createKey(t, p.partnerId, 'live');
    for (let i = 0; i < 2; i++) expect((await live.http.post('/api/connect/webhooks', subscription(i))).status).toBe(201);
    expect((await live.http.post('/api/connect/webhooks', subscription(9))).status).toBe(403);
  });
});
