import { RequestLogService } from '../../src/request-log/request-log.service';
import { RequestRecorder } from '../../src/request-log/request-recorder';
import { startApp, TestApp } from '../support/app';
import { createAdmin, createKey, createPartner } from '../support/factories';

let t: TestApp;

beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t?.close();
});

const flush = () => t.app.get(RequestRecorder).flush();
const log = () => t.app.get(RequestLogService);

describe('request log and calls per day', () => {
  it('records keyed requests per partner and mode with their X-Request-Id, filterable by status, and counts them per day', async () => {
    const p = await createPartner(t, { plan: 'growth' });
    const live = await createKey(t, p.partnerId, 'live');
    const ok = await p.http.get('/api/partners/me', { headers: { 'X-Request-Id': 'dash-req-1' } });
    const missing = await p.http.get('/api/connect/webhooks/whk_nothere00000000000000');
    await live.http.get('/api/partners/me');
    // Not keyed, not recorded; a failed key belongs to nobody.
    await t.http.get('/api/courses');
    await t.http.get('/api/partners/me', { key: 'eck_test_notakey' });
    await flush();

    const scope = { partnerId: p.partnerId, mode: 'test' as const };
    const all = await log().recent(scope, null, { page: 1, limit: 20 });
    expect(all.total).toBe(2);
    expect(all.requests.map((r) => [r.method, r.path, r.status, r.request_id])).toEqual([
      ['GET', '/api/connect/webhooks/whk_nothere00000000000000', 404, missing.headers.get('x-request-id')],
      ['GET', '/api/partners/me', 200, 'dash-req-1'],
    ]);
    expect(all.requests[1].key_prefix).toBe(p.key.slice(0, 14));
    expect(ok.status).toBe(200);
    expect((await log().recent(scope, { min: 400, max: 499 }, { page: 1, limit: 20 })).requests.map((r) => r.status)).toEqual([404]);
    expect((await log().recent({ ...scope, mode: 'live' }, null, { page: 1, limit: 20 })).total).toBe(1);

    const month = new Date().toISOString().slice(0, 7);
    const today = new Date().toISOString().slice(0, 10);
    const days = await log().usageByDay(scope, month);
    expect(days.find((d) => d.day === today)?.calls).toBe(2);
    expect(days[0].day).toBe(`${month}-01`);
  });

  it("an admin key acting for a partner is logged for that partner but not counted as the partner's usage", async () => {
    const p = await createPartner(t, { plan: 'growth' });
    const admin = await createAdmin(t);
    await admin.http.get('/api/partners/me', { headers: { 'X-Partner-Id': String(p.partnerId), 'X-Partner-Mode': 'test' } });
    await flush();
    const scope = { partnerId: p.partnerId, mode: 'test' as const };
    expect((await log().recent(scope, null, { page: 1, limit: 20 })).total).toBe(1);
    const today = new Date().toISOString().slice(0, 10);
    expect((await log().usageByDay(scope, today.slice(0, 7))).find((d) => d.day === today)?.calls).toBe(0);
  });

  it('logs calls the rate limit refuses (429) without counting them', async () => {
    const p = await createPartner(t, { plan: 'starter' });
    const results = await Promise.all(Array.from({ length: 12 }, () => p.http.get('/api/partners/me')));
    const limited = results.filter((r) => r.status === 429).length;
    expect(limited).toBeGreaterThan(0);
    await flush();
    const scope = { partnerId: p.partnerId, mode: 'test' as const };
    expect((await log().recent(scope, { min: 429, max: 429 }, { page: 1, limit: 20 })).total).toBe(limited);
    const today = new Date().toISOString().slice(0, 10);
    expect((await log().usageByDay(scope, today.slice(0, 7))).find((d) => d.day === today)?.calls).toBe(12 - limited);
  });

  it('keeps requests 7 days: older ones are pruned', async () => {
    const p = await createPartner(t, { plan: 'growth' });
    await p.http.get('/api/partners/me');
    await p.http.get('/api/partners/me');
    await flush();
    const scope = { partnerId: p.partnerId, mode: 'test' as const };
    await t.db.query(`UPDATE request_log SET created_at = now() - interval '8 days' WHERE id = (SELECT min(id) FROM request_log WHERE partner_id = $1)`, [
      p.partnerId,
    ]);
    await t.app.get(RequestRecorder).prune();
    expect((await log().recent(scope, null, { page: 1, limit: 20 })).total).toBe(1);
  });
});
