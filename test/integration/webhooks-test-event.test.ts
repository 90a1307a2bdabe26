import { startApp, TestApp } from '../support/app';
import { createKey, createPartner, CreatedPartner } from '../support/factories';
import { waitFor, WebhookReceiver } from '../support/webhook-receiver';

let t: TestApp;
let receiver: WebhookReceiver;
let p: CreatedPartner;

beforeAll(async () => {
  [t, receiver] = await Promise.all([startApp(), new WebhookReceiver().start()]);
  p = await createPartner(t, { plan: 'growth' });
});
afterAll(async () => {
  await t?.close();
  await receiver?.stop();
});

const subscribe = async (partner: CreatedPartner, path: string, events = ['course.completed']) =>
  (await partner.http.post('/api/connect/webhooks', { url: receiver.url(path), events, secret: 'test-event-secret-0123' })).body.data as { id: string };

describe('POST /api/connect/webhooks/{id}/test', () => {
  it('sends one signed webhook.test delivery to that endpoint alone, listed in its delivery log with its attempt', async () => {
    const target = await subscribe(p, '/test-target');
    const bystander = await subscribe(p, '/test-bystander');
    const res = await p.http.post(`/api/connect/webhooks/${target.id}/test`);
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ event: 'webhook.test', status: 'pending', attempts: 0 });
    const id = res.body.data.webhook_id as string;

    const received = await waitFor(() => receiver.at('/test-target')[0], 10_000, 'the test delivery');
    const body = JSON.parse(received.body.toString());
    expect(body).toMatchObject({ event: 'webhook.test', webhook_id: id, data: { webhook_subscription_id: target.id } });
    expect(received.headers['webhook-id']).toBe(id);
    expect(received.headers['webhook-signature']).toMatch(/^v1,/);

    const detail = await waitFor(async () => {
      const d = (await p.http.get(`/api/connect/webhooks/${target.id}/deliveries/${id}`)).body.data;
      return d.status === 'delivered' && d;
    });
    expect(detail.attempts).toHaveLength(1);
    expect(detail.attempts[0]).toMatchObject({ status_code: 200, response_excerpt: 'ok' });
    expect(detail.attempts[0].request_headers).toMatchObject({ 'webhook-id': id, 'x-svc-event': 'webhook.test', 'content-type': 'application/json' });
    // Nobody else got it, and no fan-out picks its event up later.
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.at('/test-bystander')).toHaveLength(0);
    expect((await p.http.get(`/api/connect/webhooks/${bystander.id}/deliveries`)).body.data.total).toBe(0);
  });

  it("refuses a disabled endpoint (409) and another partner's or mode's endpoint (404)", async () => {
    const s = await subscribe(p, '/test-disabled');
    await p.http.patch(`/api/connect/webhooks/${s.id}`, { status: 'disabled' });
    const disabled = await p.http.post(`/api/connect/webhooks/${s.id}/test`);
    expect(disabled.status).toBe(409);
    expect(disabled.body.error.code).toBe('webhook_disabled');

    const other = await createPartner(t, { plan: 'growth' });
    const live = await createKey(t, p.partnerId, 'live');
    const mine = await subscribe(p, '/test-mine');
    for (const caller of [other, live]) {
      const res = await caller.http.post(`/api/connect/webhooks/${mine.id}/test`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('webhook_not_found');
    }
    expect(receiver.at('/test-mine')).toHaveLength(0);
  });
});
