import { startApp, TestApp } from '../support/app';
import { createAdmin, createPartner } from '../support/factories';

const basic = (key: string) => ({ Authorization: `Basic ${Buffer.from(`operator:${key}`).toString('base64')}` });

describe('Bull Board at /admin/queues', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });

  afterAll(async () => {
    await t.close();
  });

  it('serves the dashboard and its queue API to an admin key given as the Basic auth password', async () => {
    const admin = await createAdmin(t);
    const page = await fetch(`${t.baseUrl}/admin/queues`, { headers: basic(admin.key) });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(await page.text()).toContain('Partner API queues');

    const api = await fetch(`${t.baseUrl}/admin/queues/api/queues`, { headers: basic(admin.key) });
    expect(api.status).toBe(200);
    const names = ((await api.json()) as { queues: Array<{ name: string }> }).queues.map((q) => q.name).sort();
    expect(names).toEqual(['jobs', 'search-embeddings', 'webhook-deliveries']);

    // Scripts may send the key as X-API-Key instead.
    expect((await fetch(`${t.baseUrl}/admin/queues/api/queues`, { headers: { 'X-API-Key': admin.key } })).status).toBe(200);
  });

  it('challenges a request without credentials and refuses bad or revoked keys', async () => {
    const none = await fetch(`${t.baseUrl}/admin/queues`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    expect(((await none.json()) as any).error.code).toBe('missing_api_key');

    const garbage = await fetch(`${t.baseUrl}/admin/queues`, { headers: basic('not-a-key') });
    expect(garbage.status).toBe(401);
    expect(((await garbage.json()) as any).error.code).toBe('invalid_api_key');

    const admin = await createAdmin(t);
    await t.db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [admin.keyId]);
    const revoked = await fetch(`${t.baseUrl}/admin/queues/api/queues`, { headers: basic(admin.key) });
    expect(revoked.status).toBe(401);
    expect(((await revoked.json()) as any).error.code).toBe('revoked_api_key');
  });

  it('answers 403 admin_only to a partner key, for the page and the queue actions', async () => {
    const partner = await createPartner(t, { plan: 'enterprise' });
    for (const [method, path] of [
      ['GET', '/admin/queues'],
      ['GET', '/admin/queues/api/queues'],
      ['PUT', '/admin/queues/api/queues/webhook-deliveries/retry/failed'],
    ]) {
      const res = await fetch(`${t.baseUrl}${path}`, { method, headers: basic(partner.key) });
      expect(res.status).toBe(403);
      expect(((await res.json()) as any).error.code).toBe('admin_only');
    }
  });
});
