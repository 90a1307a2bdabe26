import Redis from 'ioredis';
import { WEBHOOK_QUEUE, queuePrefix } from '../../src/redis/queues';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { PublicEventType } from '../../src/events/event-map';
import { EVENTS_MAX_LEN } from '../../src/redis/queue-options';
import { WebhookQueue } from '../../src/webhooks/webhook-queue';
import { DeliveryStore } from '../../src/webhooks/worker/delivery-store';
import { startApp, TestApp } from '../support/app';
import { createPartner, CreatedPartner, unique } from '../support/factories';
import { recordEvents, scopeOf } from '../support/webhook-events';
import { ReceivedRequest, waitFor, WebhookReceiver } from '../support/webhook-receiver';

/**
 * Contract section 15, end to end: the real app and worker, PostgreSQL, Redis and a receiver on 127.0.0.1.
 * Signatures are checked twice: with the standardwebhooks package (a verifier we did not write) and with node:crypto.
 */
let t: TestApp;
let receiver: WebhookReceiver;
beforeAll(async () => {
  [t, receiver] = await Promise.all([startApp(), new WebhookReceiver().start()]);
});
afterAll(async () => {
  await t.close();
  await receiver.stop();
});

const SECRET = 'trust-secret-0123456789-Zoë';

async function subscribe(p: CreatedPartner, events: PublicEventType[] = ['user.registered'], secret = SECRET): Promise<{ id: string; path: string }> {
  const path = `/${unique('hook')}`;
  const res = await p.http.post('/api/connect/webhooks', { url: receiver.url(path), events, secret });
  expect(res.status).toBe(201);
  return { id: res.body.data.id, path };
}

const librarySecret = (secret: string) => `whsec_${Buffer.from(secret, 'utf8').toString('base64')}`;

function header(r: ReceivedRequest, name: string): string {
  const v = r.headers[name];
  return Array.isArray(v) ? v.join(',') : String(v);
}

/** The Standard Webhooks check, with the library. */
function libraryVerifies(r: ReceivedRequest, secret: string): boolean {
  try {
    new Webhook(librarySecret(secret)).verify(r.body.toString('utf8'), {
      'webhook-id': header(r, 'webhook-id'),
      'webhook-timestamp': header(r, 'webhook-timestamp'),
      'webhook-signature': header(r, 'webhook-signature'),
    });
    return true;
  } catch {
    return false;
  }
}

/** The same check written independently with node:crypto: HMAC-SHA256 of "id.timestamp.body", keyed with the secret's UTF-8 bytes. */
function plainVerifies(r: ReceivedRequest, secret: string): boolean {
  const signed = Buffer.concat([Buffer.from(`${header(r, 'webhook-id')}.${header(r, 'webhook-timestamp')}.`), r.body]);
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(signed).digest();
  return header(r, 'webhook-signature')
    .split(' ')
    .some((part) => {
      const got = Buffer.from(part.replace(/^v1,/, ''), 'base64');
      return part.startsWith('v1,') && got.length === expected.length && timingSafeEqual(got, expected);
    });
}

const svcSignature = (body: Buffer, secret: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

async function deliveries(p: CreatedPartner, subId: string): Promise<Array<{ webhook_id: string; status: string; attempts: number }>> {
  const res = await p.http.get(`/api/connect/webhooks/${subId}/deliveries`);
  expect(res.status).toBe(200);
  return res.body.data.deliveries;
}

async function waitForStatuses(p: CreatedPartner, subId: string, n: number, status: string, timeoutMs = 15_000) {
  return waitFor(
    async () => {
      const list = await deliveries(p, subId);
      return list.length === n && list.every((d) => d.status === status) ? list : undefined;
    },
    timeoutMs,
    `${n} deliveries ${status}`,
  );
}

describe('Standard Webhooks headers (contract 15)', () => {
  it('signs every attempt so that the standardwebhooks library and a plain HMAC both verify it, beside an unchanged X-SVC-Signature', async () => {
    const p = await createPartner(t);
    const s = await subscribe(p);
    receiver.script(s.path, { status: 500 });
    await recordEvents(t, scopeOf(p), 'user.registered');
    await waitFor(() => receiver.at(s.path).length === 2, 10_000, 'the failed attempt and its retry');
    for (const r of receiver.at(s.path)) {
      const envelope = JSON.parse(r.body.toString('utf8'));
      expect(header(r, 'webhook-id')).toBe(envelope.webhook_id);
      expect(header(r, 'webhook-id')).toBe(header(r, 'x-svc-delivery'));
      expect(header(r, 'webhook-timestamp')).toMatch(/^\d+$/);
      expect(Math.abs(Number(header(r, 'webhook-timestamp')) - r.receivedAt / 1000)).toBeLessThan(30);
      expect(header(r, 'webhook-signature')).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(libraryVerifies(r, SECRET)).toBe(true);
      expect(plainVerifies(r, SECRET)).toBe(true);
      expect(libraryVerifies(r, 'another-secret-0123456789')).toBe(false);
      expect(plainVerifies(r, 'another-secret-0123456789')).toBe(false);
      expect(header(r, 'x-svc-signature')).toBe(svcSignature(r.body, SECRET));
      expect(r.headers).not.toHaveProperty('x-svc-signature-previous');
    }
    const [first, retry] = receiver.at(s.path);
    expect(retry.body.equals(first.body)).toBe(true);
    expect(Number(header(retry, 'webhook-timestamp'))).toBeGreaterThanOrEqual(Number(header(first, 'webhook-timestamp')));
  });

  it('is refused by the library once older than its 5-minute replay window', async () => {
    const p = await createPartner(t);
    const s = await subscribe(p);
    await recordEvents(t, scopeOf(p), 'user.registered');
    const [r] = await waitFor(() => (receiver.at(s.path).length === 1 ? receiver.at(s.path) : undefined), 10_000, 'the delivery');
    const replayed = { ...r, headers: { ...r.headers, 'webhook-timestamp': String(Number(header(r, 'webhook-timestamp')) - 301) } };
    expect(libraryVerifies(replayed, SECRET)).toBe(false);
    expect(libraryVerifies(r, SECRET)).toBe(true);
  });
});

describe('secret rotation with overlap (contract 15)', () => {
  it('signs with both secrets until previous_secret_expires_at, then with the new one alone', async () => {
    const p = await createPartner(t);
    const s = await subscribe(p);
    const NEW = 'rotated-secret-0123456789';
    const before = Date.now();
    const rotated = await p.http.post(`/api/connect/webhooks/${s.id}/rotate-secret`, { secret: NEW });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data).toMatchObject({ id: s.id, status: 'active' });
    expect(rotated.body.data).not.toHaveProperty('secret');
    const expiresAt = Date.parse(rotated.body.data.previous_secret_expires_at);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 86_400_000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 86_400_000 + 1000);
    expect((await p.http.get(`/api/connect/webhooks/${s.id}`)).body.data.previous_secret_expires_at).toBe(rotated.body.data.previous_secret_expires_at);

    await recordEvents(t, scopeOf(p), 'user.registered');
    const [during] = await waitFor(() => (receiver.at(s.path).length === 1 ? receiver.at(s.path) : undefined), 10_000, 'a delivery during the overlap');
    const [newSig, previousSig] = header(during, 'webhook-signature').split(' ');
    expect(previousSig).toBeDefined();
    for (const secret of [NEW, SECRET]) {
      expect(libraryVerifies(during, secret)).toBe(true);
      expect(plainVerifies(during, secret)).toBe(true);
    }
    expect(plainVerifies({ ...during, headers: { ...during.headers, 'webhook-signature': newSig } }, NEW)).toBe(true);
    expect(plainVerifies({ ...during, headers: { ...during.headers, 'webhook-signature': previousSig } }, SECRET)).toBe(true);
    expect(header(during, 'x-svc-signature')).toBe(svcSignature(during.body, NEW));
    expect(header(during, 'x-svc-signature-previous')).toBe(svcSignature(during.body, SECRET));

    // A second rotation with a 1-second overlap: the first secret is gone at once, the second signs for a second.
    const NEWER = 'rotated-again-0123456789';
    const again = await p.http.post(`/api/connect/webhooks/${s.id}/rotate-secret`, { secret: NEWER, previous_secret_expires_in: 1 });
    expect(again.status).toBe(200);
    const overlapEnds = Date.parse(again.body.data.previous_secret_expires_at);
    await waitFor(() => Date.now() > overlapEnds + 200, 5000, 'the overlap to end');
    expect((await p.http.get(`/api/connect/webhooks/${s.id}`)).body.data.previous_secret_expires_at).toBeNull();
    await recordEvents(t, scopeOf(p), 'user.registered');
    const after = await waitFor(() => receiver.at(s.path)[1], 10_000, 'a delivery after the overlap');
    expect(header(after, 'webhook-signature').split(' ')).toHaveLength(1);
    expect(libraryVerifies(after, NEWER)).toBe(true);
    expect(plainVerifies(after, NEWER)).toBe(true);
    for (const old of [NEW, SECRET]) expect(libraryVerifies(after, old)).toBe(false);
    expect(header(after, 'x-svc-signature')).toBe(svcSignature(after.body, NEWER));
    expect(after.headers).not.toHaveProperty('x-svc-signature-previous');
  });

  it('ends the overlap at once with previous_secret_expires_in 0', async () => {
    const p = await createPartner(t);
    const s = await subscribe(p);
    const res = await p.http.post(`/api/connect/webhooks/${s.id}/rotate-secret`, { secret: 'immediate-secret-0123456789', previous_secret_expires_in: 0 });
    expect(res.status).toBe(200);
    expect(res.body.data.previous_secret_expires_at).toBeNull();
    await recordEvents(t, scopeOf(p), 'user.registered');
    const [r] = await waitFor(() => (receiver.at(s.path).length === 1 ? receiver.at(s.path) : undefined), 10_000, 'the delivery');
    expect(libraryVerifies(r, 'immediate-secret-0123456789')).toBe(true);
    expect(libraryVerifies(r, SECRET)).toBe(false);
    expect(r.headers).not.toHaveProperty('x-svc-signature-previous');
  });

  it('validates the body and hides other partners’ subscriptions', async () => {
    const p = await createPartner(t);
    const other = await createPartner(t);
    const s = await subscribe(p);
    for (const body of [
      { secret: 'short' },
      { secret: 'long-enough-secret-0123', previous_secret_expires_in: 604_801 },
      { secret: 'long-enough-secret-0123', previous_secret_expires_in: -1 },
      { secret: 'long-enough-secret-0123', previous_secret_expires_in: 1.5 },
      { secret: 'long-enough-secret-0123', surprise: true },
      {},
    ]) {
      const res = await p.http.post(`/api/connect/webhooks/${s.id}/rotate-secret`, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
    const max = await p.http.post(`/api/connect/webhooks/${s.id}/rotate-secret`, { secret: 'long-enough-secret-0123', previous_secret_expires_in: 604_800 });
    expect(max.status).toBe(200);
    const stolen = await other.http.post(`/api/connect/webhooks/${s.id}/rotate-secret`, { secret: 'long-enough-secret-0123' });
    expect(stolen.status).toBe(404);
    expect(stolen.body.error.code).toBe('webhook_not_found');
  });
});

describe('attempt history (contract 15)', () => {
  it('shows the exact payload sent and every attempt in order, with status, duration and error', async () => {
    const p = await createPartner(t);
    const s = await subscribe(p);
    // No answer within WEBHOOK_TIMEOUT_MS (2 s in tests), then a 503, then success.
    receiver.script(s.path, { delayMs: 2600 }, { status: 503, body: 'busy' });
    await recordEvents(t, scopeOf(p), 'user.registered');
    const [delivery] = await waitForStatuses(p, s.id, 1, 'delivered', 20_000);
    const received = receiver.at(s.path);
    expect(received.length).toBe(3);

    const res = await p.http.get(`/api/connect/webhooks/${s.id}/deliveries/${delivery.webhook_id}`);
    expect(res.status).toBe(200);
    const detail = res.body.data;
    expect(detail).toMatchObject({
      webhook_id: delivery.webhook_id,
      event: 'user.registered',
      status: 'delivered',
      last_status_code: 200,
      last_error: null,
      next_attempt_at: null,
    });
    expect(detail.payload).toEqual(JSON.parse(received[2].body.toString('utf8')));
    expect(JSON.stringify(detail.payload)).toBe(received[0].body.toString('utf8'));
    expect(detail.attempts.map((a: { status_code: number | null }) => a.status_code)).toEqual([null, 503, 200]);
    expect(detail.attempts[0].error).toMatch(/^Timed out after 2000 ms$/);
    expect(detail.attempts[1].error).toBe('HTTP 503');
    expect(detail.attempts[2].error).toBeNull();
    expect(detail.attempts[0].duration_ms).toBeGreaterThanOrEqual(1900);
    for (const a of detail.attempts) {
      expect(Number.isInteger(a.duration_ms) && a.duration_ms >= 0).toBe(true);
      expect(a.attempted_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Object.keys(a).sort()).toEqual(['attempted_at', 'duration_ms', 'error', 'request_headers', 'response_excerpt', 'status_code']);
    }
    const times = detail.attempts.map((a: { attempted_at: string }) => Date.parse(a.attempted_at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    for (let i = 0; i < 3; i++) expect(Math.abs(times[i] - received[i].receivedAt)).toBeLessThan(2000);
  });

  it('keeps a late record of an attempt whose delivery settled meanwhile, without changing the delivery', async () => {
    const p = await createPartner(t);
    const s = await subscribe(p);
    await recordEvents(t, scopeOf(p), 'user.registered');
    const [delivery] = await waitForStatuses(p, s.id, 1, 'delivered');
    // As when a 2xx could not be recorded while PostgreSQL was away and is written once it is back.
    const late = new Date(Date.now() - 5000);
    await t.app.get(DeliveryStore).record({
      deliveryId: delivery.webhook_id,
      status: 'pending',
      result: { statusCode: 502, durationMs: 12, error: 'HTTP 502', responseBody: null },
      requestHeaders: { 'content-type': 'application/json' },
      attemptedAt: late,
      nextAttemptAt: new Date(),
    });
    const detail = (await p.http.get(`/api/connect/webhooks/${s.id}/deliveries/${delivery.webhook_id}`)).body.data;
    expect(detail).toMatchObject({ status: 'delivered', last_status_code: 200, last_error: null, next_attempt_at: null });
    expect(detail.attempts).toEqual([
      {
        attempted_at: late.toISOString(),
        status_code: 502,
        duration_ms: 12,
        error: 'HTTP 502',
        response_excerpt: null,
        request_headers: { 'content-type': 'application/json' },
      },
      expect.objectContaining({ status_code: 200, error: null }),
    ]);
    expect((await deliveries(p, s.id))[0].attempts).toBe(2);
  });

  it('says a connection was refused without naming the address the host resolved to', async () => {
    const p = await createPartner(t);
    // A port nothing listens on, reached through a host name: the socket error would name 127.0.0.1 and the port.
    const closed = await new WebhookReceiver().start();
    const url = closed.url(`/${unique('hook')}`).replace('127.0.0.1', 'localhost');
    await closed.stop();
    const res = await p.http.post('/api/connect/webhooks', { url, events: ['user.registered'], secret: SECRET });
    expect(res.status).toBe(201);
    await recordEvents(t, scopeOf(p), 'user.registered');
    const [delivery] = await waitForStatuses(p, res.body.data.id, 1, 'failed', 20_000);
    const list = (await p.http.get(`/api/connect/webhooks/${res.body.data.id}/deliveries`)).body.data.deliveries;
    const detail = (await p.http.get(`/api/connect/webhooks/${res.body.data.id}/deliveries/${delivery.webhook_id}`)).body.data;
    const errors = [list[0].last_error, detail.last_error, ...detail.attempts.map((a: { error: string | null }) => a.error)];
    expect(errors.length).toBeGreaterThan(2);
    expect(new Set(errors)).toEqual(new Set(['Connection refused']));
  });

  it('answers 404 for an unknown delivery, another subscription’s, or another partner’s', async () => {
    const p = await createPartner(t);
    const other = await createPartner(t);
    const a = await subscribe(p);
    const b = await subscribe(p);
    await recordEvents(t, scopeOf(p), 'user.registered');
    const [delivery] = await waitForStatuses(p, a.id, 1, 'delivered');
    for (const [client, path, code] of [
      [p, `/api/connect/webhooks/${a.id}/deliveries/whd_doesnotexist`, 'delivery_not_found'],
      [p, `/api/connect/webhooks/${b.id}/deliveries/${delivery.webhook_id}`, 'delivery_not_found'],
      [other, `/api/connect/webhooks/${a.id}/deliveries/${delivery.webhook_id}`, 'webhook_not_found'],
    ] as const) {
      const res = await client.http.get(path);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe(code);
    }
  });
});

describe('disabled subscriptions, skipped deliveries and recovery (contract 15)', () => {
  it('records events matching a disabled subscription as skipped, sends nothing, and refuses redeliver and recover with 409', async () => {
    const p = await createPartner(t);
    const s = await subscribe(p);
    expect((await p.http.patch(`/api/connect/webhooks/${s.id}`, { status: 'disabled' })).status).toBe(200);
    await recordEvents(t, scopeOf(p), 'user.registered', 'user.registered');
    const skipped = await waitForStatuses(p, s.id, 2, 'skipped');
    expect(skipped.every((d) => d.attempts === 0)).toBe(true);
    expect(receiver.at(s.path)).toHaveLength(0);

    const redeliver = await p.http.post(`/api/connect/webhooks/${s.id}/deliveries/${skipped[0].webhook_id}/redeliver`);
    expect(redeliver.status).toBe(409);
    expect(redeliver.body.error.code).toBe('webhook_disabled');
    const recover = await p.http.post(`/api/connect/webhooks/${s.id}/recover`, { since: new Date(Date.now() - 3_600_000).toISOString() });
    expect(recover.status).toBe(409);
    expect(recover.body.error.code).toBe('webhook_disabled');
    expect((await deliveries(p, s.id)).map((d) => d.status)).toEqual(['skipped', 'skipped']);
  });

  it('skips a retrying delivery whose subscription is disabled before its next attempt', async () => {
    const p = await createPartner(t);
    const s = await subscribe(p);
    // The first attempt is answered (500) only after a second: the subscription is disabled meanwhile.
    receiver.script(s.path, { status: 500, delayMs: 1000 });
    await recordEvents(t, scopeOf(p), 'user.registered');
    await waitFor(() => receiver.at(s.path).length === 1, 10_000, 'the first attempt');
    expect((await p.http.patch(`/api/connect/webhooks/${s.id}`, { status: 'disabled' })).status).toBe(200);
    const [d] = await waitForStatuses(p, s.id, 1, 'skipped');
    expect(d.attempts).toBe(1);
    expect(receiver.at(s.path)).toHaveLength(1);
  });

  it('recover re-sends every failed or skipped delivery created since the time given, with its webhook_id and bytes', async () => {
    const p = await createPartner(t);
    const s = await subscribe(p);
    // The endpoint answers 410: the delivery fails and the subscription is disabled; later events are skipped.
    receiver.script(s.path, { status: 410 });
    await recordEvents(t, scopeOf(p), 'user.registered');
    await waitFor(async () => (await p.http.get(`/api/connect/webhooks/${s.id}`)).body.data.status === 'disabled', 10_000, 'disabled by 410');
    await recordEvents(t, scopeOf(p), 'user.registered');
    const secondAt = await waitFor(
      async () => {
        const [row] = await t.db.query(`SELECT count(*)::int AS n, max(created_at) AS created_at FROM webhook_deliveries WHERE subscription_id = $1`, [s.id]);
        return row.n === 2 ? (row.created_at as Date) : undefined;
      },
      10_000,
      'the second delivery',
    );
    await recordEvents(t, scopeOf(p), 'user.registered');
    await waitFor(
      async () => {
        const statuses = (await deliveries(p, s.id)).map((d) => d.status).sort();
        return JSON.stringify(statuses) === JSON.stringify(['failed', 'skipped', 'skipped']);
      },
      10_000,
      'one failed and two skipped deliveries',
    );
    const before = await deliveries(p, s.id);
    const bodies = new Map<string, string>();
    for (const d of before)
      bodies.set(d.webhook_id, JSON.stringify((await p.http.get(`/api/connect/webhooks/${s.id}/deliveries/${d.webhook_id}`)).body.data.payload));

    expect((await p.http.patch(`/api/connect/webhooks/${s.id}`, { status: 'active' })).status).toBe(200);
    // Since the second event: only the second and third deliveries (both skipped).
    const partial = await p.http.post(`/api/connect/webhooks/${s.id}/recover`, { since: new Date(secondAt).toISOString() });
    expect(partial.status).toBe(202);
    expect(partial.body.data).toEqual({ requeued: 2 });
    await waitFor(() => receiver.at(s.path).length === 3, 10_000, 'two recovered deliveries');
    // Since an hour ago: the failed one is left (the others are delivered now).
    await waitFor(async () => (await deliveries(p, s.id)).filter((d) => d.status === 'delivered').length === 2, 10_000, 'two delivered');
    const all = await p.http.post(`/api/connect/webhooks/${s.id}/recover`, { since: new Date(Date.now() - 3_600_000).toISOString() });
    expect(all.status).toBe(202);
    expect(all.body.data).toEqual({ requeued: 1 });
    await waitForStatuses(p, s.id, 3, 'delivered');

    const resent = receiver.at(s.path).slice(1);
    expect(resent).toHaveLength(3);
    expect(new Set(resent.map((r) => header(r, 'webhook-id')))).toEqual(new Set(before.map((d) => d.webhook_id)));
    for (const r of resent) {
      expect(r.body.toString('utf8')).toBe(bodies.get(header(r, 'webhook-id')));
      expect(libraryVerifies(r, SECRET)).toBe(true);
    }
    // The first (410) delivery's history keeps both of its attempts.
    const first = before.find((d) => d.status === 'failed')!;
    const detail = (await p.http.get(`/api/connect/webhooks/${s.id}/deliveries/${first.webhook_id}`)).body.data;
    expect(detail.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([410, 200]);
    // Nothing left to recover.
    expect((await p.http.post(`/api/connect/webhooks/${s.id}/recover`, { since: new Date(Date.now() - 3_600_000).toISOString() })).body.data).toEqual({
      requeued: 0,
    });
  });

  it('recover refuses a since that is missing, not an ISO time with offset, or more than 14 days ago', async () => {
    const p = await createPartner(t);
    const s = await subscribe(p);
    for (const body of [{}, { since: 'yesterday' }, { since: '2026-01-01' }, { since: new Date(Date.now() - 15 * 86_400_000).toISOString() }, { since: 12 }]) {
      const res = await p.http.post(`/api/connect/webhooks/${s.id}/recover`, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.details[0].field).toBe('since');
    }
    const ok = await p.http.post(`/api/connect/webhooks/${s.id}/recover`, { since: new Date(Date.now() - 13 * 86_400_000).toISOString() });
    expect(ok.status).toBe(202);
    expect(ok.body.data).toEqual({ requeued: 0 });
  });
});

describe('the delivery queue stays cheap in Redis', () => {
  it('keeps no finished jobs and caps its events stream', async () => {
    const redis = new Redis(t.config.redisUrl);
    try {
      const p = await createPartner(t);
      const s = await subscribe(p);
      const n = 400;
      await recordEvents(t, scopeOf(p), ...Array.from({ length: n }, () => 'user.registered' as const));
      await waitFor(() => receiver.at(s.path).length >= n, 60_000, `${n} deliveries`);
      // A fan-out's first attempts share jobs; the sweep enqueues one job per delivery. Enqueue every delivery again the
      // sweep's way (each job finds its delivery settled): several stream entries per job, well past the cap.
      const ids = receiver.at(s.path).map((r) => String(r.headers['x-svc-delivery']));
      await t.app.get(WebhookQueue).enqueue(ids);
      const key = `${queuePrefix(t.config)}:${WEBHOOK_QUEUE}`;
      expect(await redis.hget(`${key}:meta`, 'opts.maxLenEvents')).toBe(String(EVENTS_MAX_LEN));
      await waitFor(
        async () =>
          (await redis.llen(`${key}:wait`)) === 0 &&
          (await redis.llen(`${key}:active`)) === 0 &&
          (await redis.zcard(`${key}:completed`)) === 0 &&
          (await redis.zcard(`${key}:failed`)) === 0,
        30_000,
        'every job run, no finished jobs kept',
      );
      // More entries were added than the cap, and XADD trimmed them (approximately: whole stream nodes of 100 entries).
      const info = (await redis.call('XINFO', 'STREAM', `${key}:events`)) as unknown[];
      expect(Number(info[info.indexOf('entries-added') + 1])).toBeGreaterThan(EVENTS_MAX_LEN + 200);
      expect(await redis.xlen(`${key}:events`)).toBeLessThanOrEqual(EVENTS_MAX_LEN + 200);
    } finally {
      redis.disconnect();
    }
  }, 120_000);
});
