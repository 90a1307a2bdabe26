import { PartnerApi, WebhookEvent, WebhookEventType, webhooks, WebhookVerificationError } from '../../sdk/src';
import { startApp, TestApp } from '../support/app';
import { createPartner, unique } from '../support/factories';
import { ReceivedRequest, waitFor, WebhookReceiver } from '../support/webhook-receiver';

/** webhooks.verify on real deliveries: the service signs, a receiver in this test takes them, the SDK checks them. */
let t: TestApp;
let receiver: WebhookReceiver;
beforeAll(async () => {
  // Its own queue: workers of other test files must not take these deliveries.
  [t, receiver] = await Promise.all([startApp({ REDIS_PREFIX: `${process.env.REDIS_PREFIX}-sdk-hooks` }), new WebhookReceiver().start()]);
});
afterAll(async () => {
  await t.close();
  await receiver.stop();
});

const SECRET = 'sdk-webhook-secret-0123456789-Zoë';

async function setUp(): Promise<{ api: PartnerApi; id: string; path: string }> {
  const api = new PartnerApi({ apiKey: (await createPartner(t)).key, baseUrl: t.baseUrl });
  const path = `/${unique('hook')}`;
  const { data } = await api.post('/api/connect/webhooks', {
    body: { url: receiver.url(path), events: ['user.registered', 'course.enrolled'], secret: SECRET },
  });
  return { api, id: data.id, path };
}

async function registerLearner(api: PartnerApi, path: string): Promise<{ external: string; delivery: ReceivedRequest }> {
  const before = receiver.at(path).length;
  const external = unique('ext');
  await api.users.create({ external_user_id: external, name: 'Ada', email: `${unique('ada')}@example.com` });
  const delivery = await waitFor(() => receiver.at(path)[before], 10_000, 'the delivery');
  return { external, delivery };
}

function refusal(body: Buffer | string, headers: ReceivedRequest['headers'], secret: string | string[], now?: Date): WebhookVerificationError {
  try {
    webhooks.verify(body, headers, secret, { now });
  } catch (err) {
    if (err instanceof WebhookVerificationError) return err;
    throw err;
  }
  throw new Error('verify accepted the delivery');
}

it('accepts a real delivery and returns the typed event', async () => {
  const { api, path } = await setUp();
  const { external, delivery } = await registerLearner(api, path);
  const event: WebhookEvent = webhooks.verify(delivery.body, delivery.headers, SECRET);
  if (event.event !== 'user.registered') throw new Error(`unexpected ${event.event}`);
  expect(event.data.external_user_id).toBe(external);
  expect(event.webhook_id).toBe(delivery.headers['webhook-id']);
  // The same check takes a Fetch Headers object and the body as a string.
  const headers = new Headers(Object.entries(delivery.headers).map(([k, v]) => [k, String(v)] as [string, string]));
  expect(api.webhooks.verify(delivery.body.toString('utf8'), headers, SECRET)).toEqual(event);
});

it('types the event as a union of exactly the document’s nine webhook events', async () => {
  // A missing or extra event type here does not compile.
  const types: Record<WebhookEventType, true> = {
    'user.registered': true,
    'course.enrolled': true,
    'course.progress': true,
    'course.completed': true,
    'certificate.issued': true,
    'credits.purchased': true,
    'webinar.started': true,
    'webinar.joined': true,
    'webinar.ended': true,
  };
  const doc = await t.http.get<{ webhooks: Record<string, unknown> }>('/docs/openapi.json');
  expect(Object.keys(types).sort()).toEqual(Object.keys(doc.body.webhooks).sort());
});

it('refuses a tampered body, a wrong secret, a stale timestamp and a missing signature', async () => {
  const { api, path } = await setUp();
  const { delivery } = await registerLearner(api, path);
  const tampered = Buffer.from(delivery.body.toString('utf8').replace('"Ada"', '"Eve"'));
  expect(tampered.equals(delivery.body)).toBe(false);
  expect(refusal(tampered, delivery.headers, SECRET).reason).toBe('invalid_signature');
  expect(refusal(delivery.body, delivery.headers, 'not-the-secret-0123456789').reason).toBe('invalid_signature');
  const sent = Number(delivery.headers['webhook-timestamp']) * 1000;
  expect(refusal(delivery.body, delivery.headers, SECRET, new Date(sent + 301_000)).reason).toBe('timestamp_out_of_tolerance');
  expect(webhooks.verify(delivery.body, delivery.headers, SECRET, { now: new Date(sent + 299_000) }).event).toBe('user.registered');
  expect(webhooks.verify(delivery.body, delivery.headers, SECRET, { now: new Date(sent + 600_000), toleranceSeconds: 900 }).event).toBe('user.registered');
  // Moving the timestamp breaks the Standard Webhooks signature, which covers it.
  const replayed = { ...delivery.headers, 'webhook-timestamp': String(Number(delivery.headers['webhook-timestamp']) - 60) };
  expect(refusal(delivery.body, replayed, SECRET).reason).toBe('invalid_signature');
  const withoutSvc = { ...delivery.headers };
  delete withoutSvc['x-svc-signature'];
  expect(refusal(delivery.body, withoutSvc, SECRET).reason).toBe('missing_header');
});

it('accepts deliveries signed during a secret rotation with either secret, and only the new one afterwards', async () => {
  const { api, id, path } = await setUp();
  const NEW = 'sdk-rotated-secret-0123456789';
  await api.post('/api/connect/webhooks/{id}/rotate-secret', { params: { path: { id } }, body: { secret: NEW, previous_secret_expires_in: 2 } });
  const { delivery: during } = await registerLearner(api, path);
  expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
  for (const secret of [NEW, SECRET]) expect(webhooks.verify(during.body, during.headers, secret).event).toBe('user.registered');
  expect(refusal(during.body, during.headers, 'neither-secret-0123456789').reason).toBe('invalid_signature');

  await waitFor(
    async () => (await api.get('/api/connect/webhooks/{id}', { params: { path: { id } } })).data.previous_secret_expires_at === null,
    10_000,
    'the overlap to end',
  );
  const { delivery: after } = await registerLearner(api, path);
  expect(webhooks.verify(after.body, after.headers, NEW).event).toBe('user.registered');
  expect(refusal(after.body, after.headers, SECRET).reason).toBe('invalid_signature');
  // A receiver rotating its own copy lists both secrets.
  expect(webhooks.verify(after.body, after.headers, [SECRET, NEW]).event).toBe('user.registered');
});
