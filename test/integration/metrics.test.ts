import { startApp, TestApp } from '../support/app';
import { createPartner } from '../support/factories';
import { waitFor, WebhookReceiver } from '../support/webhook-receiver';

let t: TestApp;
beforeAll(async () => {
  t = await startApp({ METRICS_TOKEN: 'metrics-token-for-tests' });
});
afterAll(() => t.close());

describe('/metrics', () => {
  it('refuses a scrape without the token', async () => {
    expect((await t.http.get('/metrics')).status).toBe(401);
    expect((await t.http.get('/metrics', { headers: { Authorization: 'Bearer wrong' } })).status).toBe(401);
  });

  it('reports request counts and latency by route and status, error codes, and the outbox backlog', async () => {
    const p = await createPartner(t, { plan: 'starter' });
    await p.http.get('/api/courses');
    await p.http.get('/api/users');
    const res = await t.http.get('/metrics', { headers: { Authorization: 'Bearer metrics-token-for-tests' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(res.text).toMatch(/http_requests_total\{method="GET",route="\/api\/courses",status="200"\} \d+/);
    expect(res.text).toMatch(/http_request_duration_seconds_bucket\{le="0.05",method="GET",route="\/api\/courses",status="200"\}/);
    expect(res.text).toMatch(/api_errors_total\{code="endpoint_not_in_plan"\} \d+/);
    expect(res.text).toMatch(/^outbox_backlog \d+$/m);
    expect(res.text).toContain('process_resident_memory_bytes');
  });

  it('reports webhook delivery outcomes and latency, and the delivery queue depth', async () => {
    const receiver = await new WebhookReceiver().start();
    try {
      const p = await createPartner(t, { plan: 'growth' });
      const created = await p.http.post('/api/connect/webhooks', {
        url: receiver.url('/metrics-hook'),
        events: ['user.registered'],
        secret: 'a-secret-of-16-chars-or-more',
      });
      expect(created.status).toBe(201);
      await p.http.post('/api/users', { external_user_id: 'metrics-1', name: 'Metrics', email: 'metrics@example.com' });
      await waitFor(() => receiver.at('/metrics-hook').length >= 1, 10_000, 'the delivery');
      const scrape = async () => (await t.http.get('/metrics', { headers: { Authorization: 'Bearer metrics-token-for-tests' } })).text;
      await waitFor(async () => /webhook_delivery_attempts_total\{outcome="delivered"\} [1-9]/.test(await scrape()), 5000, 'the delivered counter');
      const text = await scrape();
      expect(text).toMatch(/webhook_delivery_duration_seconds_count [1-9]/);
      expect(text).toMatch(/webhook_queue_jobs\{state="waiting"\} \d+/);
    } finally {
      await receiver.stop();
    }
  });
});

describe('/metrics without METRICS_TOKEN', () => {
  it('does not exist', async () => {
    const other = await startApp({ METRICS_TOKEN: '' });
    try {
      expect((await other.http.get('/metrics')).status).toBe(404);
    } finally {
      await other.close();
    }
  });
});

/** Issue 26, finding 6: failed metrics tokens were not limited; they now count like failed keys, per client address. */
describe('/metrics with wrong tokens', () => {
  it('answers 429 past the failed-authentication limit, and the right token still works from that address', async () => {
    const limited = await startApp({ METRICS_TOKEN: 'metrics-token-for-tests', TRUST_PROXY: '1', AUTH_FAILURE_LIMIT_PER_MINUTE: '5' });
    try {
      const ip = `198.18.${Math.floor(Math.random() * 255)}.${1 + Math.floor(Math.random() * 254)}`;
      const scrape = (token: string) => limited.http.get('/metrics', { headers: { Authorization: `Bearer ${token}`, 'X-Forwarded-For': ip } });
      for (let i = 0; i < 5; i++) expect((await scrape(`wrong-${i}`)).status).toBe(401);
      const refused = await scrape('wrong-again');
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await scrape('metrics-token-for-tests')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
