import { PartnerApi, PartnerApiError } from '../../sdk/src';
import { startApp, TestApp } from '../support/app';
import { createCourse, createPartner, CreatedPartner, unique } from '../support/factories';
import { Fault, FaultProxy } from '../support/fault-proxy';

/**
 * The SDK against the real service through a proxy that injects faults after the service has applied the request:
 * whatever happens on the way back, a retried write is applied once and the caller gets the first answer.
 */
const TIMEOUT_MS = 2000;
let t: TestApp;
let proxy: FaultProxy;
beforeAll(async () => {
  // Its own Redis prefix: the registrations sent here count against no other file's per-IP hourly limit.
  t = await startApp({ REDIS_PREFIX: `${process.env.REDIS_PREFIX}-sdk-retries` });
  proxy = await new FaultProxy(t.baseUrl, TIMEOUT_MS + 1500).start();
});
afterAll(async () => {
  await proxy.stop();
  await t.close();
});

const sdkFor = (p: CreatedPartner) => new PartnerApi({ apiKey: p.key, baseUrl: proxy.baseUrl, timeoutMs: TIMEOUT_MS, maxRetries: 3 });

async function learner(api: PartnerApi): Promise<number> {
  const { data } = await api.users.create({ external_user_id: unique('ext'), name: 'Ada Lovelace', email: `${unique('ada')}@example.com` });
  return data.id;
}

/** Every attempt of the one call carried the same key, and the service's first answer is what the SDK returned. */
function expectOneKeyAndOriginal(path: string, fault: Fault, returned: unknown) {
  const attempts = proxy.to('POST', path).slice(-2);
  expect(attempts.map((a) => a.fault)).toEqual([fault, undefined]);
  const key = attempts[0].headers['idempotency-key'];
  expect(key).toMatch(/^[0-9a-f-]{36}$/);
  expect(attempts[1].headers['idempotency-key']).toBe(key);
  expect((JSON.parse(attempts[0].upstream.body) as { data: unknown }).data).toEqual(returned);
}

describe.each<Fault>(['drop', '503', '429', 'slow'])('through a fault (%s) after the service applied the write', (fault) => {
  it('applies a top-up once and returns the original transaction, replayed', async () => {
    const p = await createPartner(t);
    const api = sdkFor(p);
    const userId = await learner(api);
    proxy.inject(fault);
    const started = Date.now();
    const res = await api.credits.topUp({ user_id: userId, amount: 250, source: 'sdk-test' });
    expect(res.status).toBe(201);
    expect(res.idempotentReplayed).toBe(true);
    expect(res.attempts).toBe(2);
    expect(res.requestId).toMatch(/^[A-Za-z0-9._-]+$/);
    expectOneKeyAndOriginal('/api/credits/topup', fault, res.data);
    if (fault === '429') expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    const ledger = await api.credits.transactions(userId);
    expect(ledger.data.total).toBe(1);
    expect((await api.credits.balance(userId)).data.credits).toBe(250);
  });

  it('applies an enrolment once (one debit) and returns the original enrolment, replayed', async () => {
    const p = await createPartner(t);
    const api = sdkFor(p);
    const { course } = await createCourse(t.db, { creditCost: 40 });
    const userId = await learner(api);
    await api.credits.topUp({ user_id: userId, amount: 100 });
    proxy.inject(fault);
    const res = await api.enrollments.create({ user_id: userId, course_id: course.id });
    expect(res.status).toBe(201);
    expect(res.idempotentReplayed).toBe(true);
    expect(res.data).toMatchObject({ user_id: userId, course_id: course.id, credits_deducted: 40, credits_remaining: 60 });
    expectOneKeyAndOriginal('/api/enroll', fault, res.data);
    expect((await api.enrollments.listForUser(userId)).data.total).toBe(1);
    expect((await api.credits.balance(userId)).data.credits).toBe(60);
  });
});

describe('retry rules', () => {
  it('keeps the caller’s Idempotency-Key on every attempt', async () => {
    const api = sdkFor(await createPartner(t));
    const userId = await learner(api);
    const key = unique('order');
    proxy.inject('503');
    const res = await api.credits.topUp({ user_id: userId, amount: 5 }, { idempotencyKey: key });
    expect(res.idempotentReplayed).toBe(true);
    expect(
      proxy
        .to('POST', '/api/credits/topup')
        .slice(-2)
        .map((r) => r.headers['idempotency-key']),
    ).toEqual([key, key]);
    // The same key later, from another process say, still answers the first result.
    const again = await api.credits.topUp({ user_id: userId, amount: 5 }, { idempotencyKey: key });
    expect(again.data).toEqual(res.data);
    expect((await api.credits.balance(userId)).data.credits).toBe(5);
  });

  it('retries through the openapi-fetch client too, which answers instead of throwing', async () => {
    const api = sdkFor(await createPartner(t));
    const userId = await learner(api);
    proxy.inject('drop');
    const { data, error, response } = await api.client.POST('/api/credits/topup', { body: { user_id: userId, amount: 7 } });
    expect(error).toBeUndefined();
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    expect(data?.data.credits).toBe(7);
    expect((await api.credits.balance(userId)).data.credits).toBe(7);
    const missing = await api.client.GET('/api/users/{id}', { params: { path: { id: 2_000_000_000 } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error?.error.code).toBe('user_not_found');
  });

  it('never retries a POST to a route that ignores Idempotency-Key once it was sent', async () => {
    const api = new PartnerApi({ apiKey: (await createPartner(t)).key, baseUrl: proxy.baseUrl, maxRetries: 3 });
    for (const fault of ['drop', '503'] as const) {
      const before = proxy.to('POST', '/api/partners/register').length;
      proxy.inject(fault);
      const failure = await api
        .post('/api/partners/register', { body: { name: unique('Shop'), email: `${unique('o')}@example.com` } })
        .catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(PartnerApiError);
      expect(failure).toMatchObject(
        fault === 'drop' ? { status: 0, code: 'network_error', attempts: 1 } : { status: 503, code: 'service_unavailable', attempts: 1 },
      );
      expect(proxy.to('POST', '/api/partners/register').length).toBe(before + 1);
    }
  });

  it('retries reads and gives up after maxRetries with the last answer as the error', async () => {
    const p = await createPartner(t);
    const api = new PartnerApi({ apiKey: p.key, baseUrl: proxy.baseUrl, maxRetries: 1 });
    proxy.inject('503');
    expect((await api.get('/api/partners/me')).attempts).toBe(2);
    proxy.inject('503', '503');
    const failure = await api.get('/api/partners/me').catch((e: unknown) => e);
    expect(failure).toMatchObject({ status: 503, code: 'service_unavailable', requestId: 'fault-proxy', attempts: 2 });
  });
});

describe('errors', () => {
  it('throws one PartnerApiError with the envelope’s code, message, details and request id', async () => {
    const api = new PartnerApi({ apiKey: (await createPartner(t)).key, baseUrl: t.baseUrl });
    const userId = await learner(api);
    const { course } = await createCourse(t.db, { creditCost: 30 });
    const failure = await api.enrollments.create({ user_id: userId, course_id: course.id }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PartnerApiError);
    const err = failure as PartnerApiError;
    expect(err).toMatchObject({ status: 402, code: 'insufficient_credits', details: { required: 30, available: 0 } });
    expect(err.message.length).toBeGreaterThan(0);
    expect(err.requestId).toBe(err.headers.get('x-request-id'));
    const invalid = await api.users.create({ external_user_id: '', name: 'x', email: 'not-an-email' }).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 400, code: 'validation_failed' });
    expect((invalid as PartnerApiError).details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'email' })]));
  });
});

describe('paginate()', () => {
  it('walks a list of more than three pages, yielding every item once', async () => {
    const p = await createPartner(t);
    let gets = 0;
    const api = new PartnerApi({
      apiKey: p.key,
      baseUrl: t.baseUrl,
      fetch: (input, init) => {
        if ((input as Request).method === 'GET') gets++;
        return fetch(input, init);
      },
    });
    const created = new Set<number>();
    for (let i = 0; i < 9; i++) created.add(await learner(api));
    const seen: number[] = [];
    for await (const user of api.paginate('/api/users', { params: { query: { limit: 2 } } })) seen.push(user.id);
    expect(gets).toBe(5);
    expect(seen).toHaveLength(9);
    expect(new Set(seen)).toEqual(created);
  });
});
