import { PartnerApi, PartnerApiError } from '../../sdk/src';
import { parseRetryAfter } from '../../sdk/src/transport';

/** The SDK's retry bounds with a scripted fetch (the integration tests drive the same rules through a real proxy). */
type Step = number | [number, Record<string, string>] | string;

function scripted(...steps: Step[]) {
  const seen: Request[] = [];
  const fetchImpl = (input: Request | string | URL) => {
    const request = input as Request;
    seen.push(request);
    const step = steps.shift() ?? 200;
    if (typeof step === 'string') return Promise.reject(new TypeError('fetch failed', { cause: Object.assign(new Error(step), { code: step }) }));
    const [status, headers] = typeof step === 'number' ? [step, {}] : step;
    const body =
      status < 300 ? { status: 'success', data: { ok: true } } : { status: 'error', error: { code: `code_${status}`, message: 'm', request_id: 'r' } };
    return Promise.resolve(new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } }));
  };
  return { seen, fetch: fetchImpl };
}

const client = (f: typeof fetch, options: Partial<ConstructorParameters<typeof PartnerApi>[0]> = {}) =>
  new PartnerApi({ apiKey: 'eck_test_x', baseUrl: 'http://127.0.0.1:9/api/', fetch: f, ...options });

it('stops after maxRetries retries and throws the last answer', async () => {
  const f = scripted([503, { 'retry-after': '0' }], [503, { 'retry-after': '0' }], [503, { 'retry-after': '0' }], 200);
  const failure = await client(f.fetch, { maxRetries: 2 })
    .get('/api/partners/me')
    .catch((e: unknown) => e);
  expect(failure).toBeInstanceOf(PartnerApiError);
  expect(failure).toMatchObject({ status: 503, code: 'code_503', attempts: 3 });
  expect(f.seen).toHaveLength(3);
  expect(f.seen[0].url).toBe('http://127.0.0.1:9/api/partners/me');
});

it('does not wait past maxRetryTimeMs: a Retry-After beyond it ends the retries at once', async () => {
  const f = scripted([429, { 'retry-after': '30' }], 200);
  const started = Date.now();
  const failure = await client(f.fetch, { maxRetryTimeMs: 5000 })
    .get('/api/partners/me')
    .catch((e: unknown) => e);
  expect(failure).toMatchObject({ status: 429, attempts: 1 });
  expect(Date.now() - started).toBeLessThan(1000);
});

it('backs off with jitter when no Retry-After is given', async () => {
  const f = scripted(503, 200);
  const started = Date.now();
  const res = await client(f.fetch).get('/api/partners/me');
  expect(res.attempts).toBe(2);
  // The first back-off is 250–500 ms.
  expect(Date.now() - started).toBeGreaterThanOrEqual(240);
});

it('retries a POST to a keyless route only when the connection could not be opened', async () => {
  const refused = scripted('ECONNREFUSED', 201);
  const res = await client(refused.fetch).post('/api/partners/register', { body: { name: 'n', email: 'e@example.com' } });
  expect(res.attempts).toBe(2);
  expect(refused.seen[0].headers.get('idempotency-key')).toBeNull();
  const reset = scripted('ECONNRESET', 201);
  const failure = await client(reset.fetch)
    .post('/api/partners/register', { body: { name: 'n', email: 'e@example.com' } })
    .catch((e: unknown) => e);
  expect(failure).toMatchObject({ status: 0, code: 'network_error', attempts: 1 });
  expect(reset.seen).toHaveLength(1);
});

it('gives a keyed POST one generated key for all its attempts, and a new one per call', async () => {
  const f = scripted('ECONNRESET', [409, {}], 201, 201);
  // The 409 here is not idempotency_request_in_progress: it ends the call.
  await expect(client(f.fetch).credits.topUp({ user_id: 1, amount: 5 })).rejects.toMatchObject({ status: 409, attempts: 2 });
  await client(f.fetch).credits.topUp({ user_id: 1, amount: 5 });
  const keys = f.seen.map((r) => r.headers.get('idempotency-key'));
  expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
  expect(keys[1]).toBe(keys[0]);
  expect(keys[2]).not.toBe(keys[0]);
});

it('stops waiting when the caller aborts', async () => {
  const f = scripted([503, { 'retry-after': '10' }]);
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error('caller gave up')), 100);
  await expect(client(f.fetch).get('/api/partners/me', { signal: controller.signal })).rejects.toThrow('caller gave up');
});

it('reads Retry-After as seconds or as an HTTP date', () => {
  expect(parseRetryAfter('1')).toBe(1000);
  expect(parseRetryAfter('0.5')).toBe(500);
  expect(parseRetryAfter(new Date(Date.now() + 5000).toUTCString())).toBeGreaterThan(3000);
  expect(parseRetryAfter('soon')).toBeUndefined();
  expect(parseRetryAfter(null)).toBeUndefined();
});
