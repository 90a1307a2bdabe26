import { createHmac, timingSafeEqual } from 'node:crypto';
import { PUBLIC_EVENT_TYPES, PublicEventType } from '../../src/events/event-map';
import { startApp, TestApp } from '../support/app';
import { createKey, createPartner, CreatedPartner, unique } from '../support/factories';
import { recordEvents, SAMPLE_PAYLOADS, scopeOf } from '../support/webhook-events';
import { waitFor, WebhookReceiver } from '../support/webhook-receiver';

let t: TestApp;
let receiver: WebhookReceiver;
beforeAll(async () => {
  [t, receiver] = await Promise.all([startApp(), new WebhookReceiver().start()]);
});
afterAll(async () => {
  await t.close();
  await receiver.stop();
});

const SECRET = 'receiver-secret-0123456789';

async function subscribe(p: CreatedPartner, events: PublicEventType[], secret = SECRET): Promise<{ id: string; path: string }> {
  const path = `/${unique('hook')}`;
  const res = await p.http.post('/api/connect/webhooks', { url: receiver.url(path), events, secret });
  expect(res.status).toBe(201);
  return { id: res.body.data.id, path };
}

/** Independent of the service's helper: node:crypto directly. */
function signatureOk(body: Buffer, header: string | string[] | undefined, secret: string): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
  const got = Buffer.from(String(header));
  return got.length === expected.length && timingSafeEqual(got, expected);
}

/**
 * The events are dispatched (fan-out has written every delivery they will ever get) and no delivery of theirs is still
 * pending: nothing more will be sent for them, so what has not arrived by now never will.
 */
async function settled(eventIds: string[]): Promise<boolean> {
  const [{ open }] = await t.db.query(
    `SELECT (SELECT count(*) FROM events_undispatched WHERE event_id = ANY ($1))
          + (SELECT count(*) FROM webhook_deliveries WHERE event_id = ANY ($1) AND status = 'pending') AS open`,
    [eventIds],
  );
  return Number(open) === 0;
}

async function deliveries(p: CreatedPartner, subId: string) {
  return (await p.http.get(`/api/connect/webhooks/${subId}/deliveries`)).body.data.deliveries;
}

describe('webhook delivery', () => {
  it('sends every event type once per matching subscription, with the envelope, headers and a valid signature', async () => {
    const p = await createPartner(t);
    const a = await subscribe(p, [...PUBLIC_EVENT_TYPES]);
    const b = await subscribe(p, ['user.registered'], 'second-secret-abcdefgh');
    const events = await recordEvents(t, scopeOf(p), ...PUBLIC_EVENT_TYPES);
    await waitFor(() => receiver.at(a.path).length === 9 && receiver.at(b.path).length === 1, 10_000, 'deliveries');
    await waitFor(() => settled(events.map((e) => e.id)), 5000, 'every delivery final');
    expect(receiver.at(a.path)).toHaveLength(9);
    expect(receiver.at(b.path)).toHaveLength(1);

    for (const event of events) {
      const got = receiver.at(a.path).find((r) => r.headers['x-svc-event'] === event.type)!;
      const envelope = JSON.parse(got.body.toString('utf8'));
      expect(envelope).toEqual({
        event: event.type,
        timestamp: event.occurredAt.toISOString(),
        webhook_id: expect.stringMatching(/^whd_/),
        data: SAMPLE_PAYLOADS[event.type],
      });
      expect(got.method).toBe('POST');
      expect(got.headers['content-type']).toBe('application/json');
      expect(got.headers['x-svc-delivery']).toBe(envelope.webhook_id);
      expect(got.headers['user-agent']).toMatch(/^PartnerAPI-Webhooks\//);
      expect(signatureOk(got.body, got.headers['x-svc-signature'], SECRET)).toBe(true);
      expect(signatureOk(got.body, got.headers['x-svc-signature'], 'second-secret-abcdefgh')).toBe(false);
    }
    const toB = receiver.at(b.path)[0];
    expect(signatureOk(toB.body, toB.headers['x-svc-signature'], 'second-secret-abcdefgh')).toBe(true);
    expect(toB.headers['x-svc-delivery']).not.toBe(receiver.at(a.path).find((r) => r.headers['x-svc-event'] === 'user.registered')!.headers['x-svc-delivery']);

    await waitFor(async () => (await deliveries(p, a.id)).every((d: { status: string }) => d.status === 'delivered'), 5000, 'delivered status');
    const log = await deliveries(p, a.id);
    expect(log).toHaveLength(9);
    expect(log[0]).toEqual({
      webhook_id: expect.stringMatching(/^whd_/),
      event: expect.any(String),
      status: 'delivered',
      attempts: 1,
      last_status_code: 200,
      last_error: null,
      created_at: expect.stringMatching(/Z$/),
      delivered_at: expect.stringMatching(/Z$/),
      next_attempt_at: null,
    });
  });

  it('sends nothing to subscriptions of another event type, another partner or the other mode, nor to disabled ones', async () => {
    const p = await createPartner(t);
    const other = await createPartner(t);
    const live = await createKey(t, p.partnerId, 'live');
    const wanted = await subscribe(p, ['course.enrolled']);
    const otherType = await subscribe(p, ['course.completed']);
    const otherPartner = await subscribe(other, ['course.enrolled']);
    const disabled = await subscribe(p, ['course.enrolled']);
    await p.http.patch(`/api/connect/webhooks/${disabled.id}`, { status: 'disabled' });
    // Live subscriptions need https; insert directly to target the local receiver.
    const livePath = `/${unique('live')}`;
    await t.db.query(
      `INSERT INTO webhook_subscriptions (id, partner_id, mode, url, events, secret_encrypted) VALUES ($1, $2, 'live', $3, ARRAY['course.enrolled'], 'v1:x:y:z')`,
      [`whk_${unique('l').replace('-', '')}`, live.partnerId, receiver.url(livePath)],
    );
    const [event] = await recordEvents(t, scopeOf(p), 'course.enrolled');
    await waitFor(() => receiver.at(wanted.path).length === 1, 5000, 'the matching delivery');
    await waitFor(() => settled([event.id]), 5000, 'the event dispatched and its deliveries final');
    // The disabled subscription's delivery is kept as skipped (for recover); no other subscription got one.
    const rows: Array<{ subscription_id: string; status: string }> = await t.db.query(
      `SELECT subscription_id, status FROM webhook_deliveries WHERE event_id = $1 ORDER BY status`,
      [event.id],
    );
    expect(rows).toEqual([
      { subscription_id: wanted.id, status: 'delivered' },
      { subscription_id: disabled.id, status: 'skipped' },
    ]);
    for (const path of [otherType.path, otherPartner.path, disabled.path, livePath]) expect(receiver.at(path)).toHaveLength(0);
    expect(receiver.at(wanted.path)).toHaveLength(1);
  });

  it('retries a failing endpoint with the same webhook_id and identical bytes', async () => {
    const p = await createPartner(t);
    const s = await subscribe(p, ['user.registered']);
    receiver.script(s.path, { status: 500, body: 'boom' }, { status: 503, headers: { 'retry-after': '0' } });
    await recordEvents(t, scopeOf(p), 'user.registered');
    await waitFor(() => receiver.at(s.path).length === 3, 8000, 'three attempts');
    const [first, second, third] = receiver.at(s.path);
    expect(second.body.equals(first.body)).toBe(true);
    expect(third.body.equals(first.body)).toBe(true);
    expect(new Set([first, second, third].map((r) => r.headers['x-svc-delivery'])).size).toBe(1);
    expect(third.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(2 * 270); // 300 ms ± 10 % twice

    const [delivery] = await waitFor(
      async () => {
        const list = await deliveries(p, s.id);
        return list[0]?.status === 'delivered' && list;
      },
      3000,
      'delivered',
    );
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 3, last_status_code: 200, webhook_id: first.headers['x-svc-delivery'] });
    const attempts = await t.db.query(`SELECT status_code, duration_ms, error, response_body FROM webhook_attempts WHERE delivery_id = $1 ORDER BY id`, [
      delivery.webhook_id,
    ]);
    expect(attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 503, 200]);
    expect(attempts[0]).toMatchObject({ error: 'HTTP 500', response_body: 'boom' });
    expect(attempts.every((a: { duration_ms: number }) => a.duration_ms >= 0)).toBe(true);
  });

  it('records each of many concurrent attempts against its own delivery (the worker writes them in batches)', async () => {
    const p = await createPartner(t);
    const s = await subscribe(p, ['user.registered']);
    receiver.script(s.path, ...Array.from({ length: 4 }, () => ({ status: 503, body: 'busy' })));
    const events = await recordEvents(t, scopeOf(p), ...Array.from({ length: 12 }, () => 'user.registered' as const));
    await waitFor(
      async () => {
        const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = ANY ($1) AND status = 'delivered'`, [
          events.map((e) => e.id),
        ]);
        return n === 12;
      },
      15_000,
      '12 deliveries delivered',
    );

    // What the receiver answered each delivery, in order (the first four requests got 503, every later one 200).
    const answered = new Map<string, number[]>();
    receiver.at(s.path).forEach((r, i) => {
      const id = String(r.headers['x-svc-delivery']);
      answered.set(id, [...(answered.get(id) ?? []), i < 4 ? 503 : 200]);
    });
    const rows: Array<{ id: string; attempts: number; last_status_code: number; codes: number[] }> = await t.db.query(
      `SELECT d.id, d.attempts, d.last_status_code, array_agg(a.status_code ORDER BY a.attempted_at, a.id) AS codes
         FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id
        WHERE d.event_id = ANY ($1) GROUP BY d.id`,
      [events.map((e) => e.id)],
    );
    expect(rows).toHaveLength(12);
    for (const row of rows) {
      expect(row.codes).toEqual(answered.get(row.id));
      expect(row.attempts).toBe(row.codes.length);
      expect(row.last_status_code).toBe(200);
    }
    expect(rows.flatMap((r) => r.codes).filter((c) => c === 503)).toHaveLength(4);
  });

  it('disables the subscription on 410 and stops retrying', async () => {
    const p = await createPartner(t);
    const s = await subscribe(p, ['user.registered']);
    receiver.script(s.path, { status: 410 });
    const [first] = await recordEvents(t, scopeOf(p), 'user.registered');
    await waitFor(async () => (await p.http.get(`/api/connect/webhooks/${s.id}`)).body.data.status === 'disabled', 5000, 'disabled');
    await waitFor(() => settled([first.id]), 5000, 'the delivery final');
    expect(receiver.at(s.path)).toHaveLength(1);
    const [delivery] = await deliveries(p, s.id);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, last_status_code: 410, next_attempt_at: null });
    const [later] = await recordEvents(t, scopeOf(p), 'user.registered');
    await waitFor(() => settled([later.id]), 5000, 'the later event dispatched');
    expect(receiver.at(s.path)).toHaveLength(1);
  });

  it('retries after a timeout', async () => {
    const p = await createPartner(t);
    const s = await subscribe(p, ['user.registered']);
    // Two slow answers, then 200s. A timed-out attempt whose record hits a database hiccup on a loaded machine is, by
    // design, not counted and made again; the second slow answer keeps a counted timeout in the log even then.
    receiver.script(s.path, { delayMs: 2600 }, { delayMs: 2600 }); // WEBHOOK_TIMEOUT_MS=2000 in tests
    await recordEvents(t, scopeOf(p), 'user.registered');
    // Generous limits: a loaded CI machine may be slow to retry and to write the batched attempt records.
    const [delivery] = await waitFor(
      async () => {
        const list = await deliveries(p, s.id);
        return list[0]?.status === 'delivered' && list;
      },
      30000,
      'delivered',
    );
    const log: Array<{ status_code: number | null; error: string | null; duration_ms: number }> = await t.db.query(
      `SELECT status_code, error, duration_ms FROM webhook_attempts WHERE delivery_id = $1 ORDER BY id`,
      [delivery.webhook_id],
    );
    expect(delivery.attempts).toBe(log.length);
    expect(log.length).toBeGreaterThanOrEqual(2);
    expect(receiver.at(s.path).length).toBeGreaterThanOrEqual(log.length);
    for (const attempt of log.slice(0, -1)) {
      expect(attempt.status_code).toBeNull();
      expect(attempt.error).toMatch(/Timed out/);
      expect(attempt.duration_ms).toBeGreaterThanOrEqual(1900);
    }
    expect(log[log.length - 1]).toMatchObject({ status_code: 200, error: null });
  });

  it('does not follow redirects, and marks the delivery failed once retries are exhausted', async () => {
    const p = await createPartner(t);
    const s = await subscribe(p, ['user.registered']);
    const target = `/${unique('target')}`;
    const redirect = { status: 302, headers: { location: receiver.url(target) } };
    receiver.script(s.path, redirect, redirect, redirect, redirect);
    await recordEvents(t, scopeOf(p), 'user.registered');
    const [delivery] = await waitFor(
      async () => {
        const list = await deliveries(p, s.id);
        return list[0]?.status === 'failed' && list;
      },
      8000,
      'failed',
    );
    expect(delivery).toMatchObject({ status: 'failed', attempts: 4, last_status_code: 302, next_attempt_at: null });
    expect(delivery.last_error).toMatch(/Redirect/);
    expect(receiver.at(s.path)).toHaveLength(4);
    expect(receiver.at(target)).toHaveLength(0);
  });

  it('redelivers the same bytes and webhook_id on request', async () => {
    const p = await createPartner(t);
    const s = await subscribe(p, ['user.registered']);
    await recordEvents(t, scopeOf(p), 'user.registered');
    await waitFor(() => receiver.at(s.path).length === 1, 5000, 'first delivery');
    const [delivery] = await waitFor(
      async () => {
        const list = await deliveries(p, s.id);
        return list[0]?.status === 'delivered' && list;
      },
      3000,
      'delivered',
    );
    const res = await p.http.post(`/api/connect/webhooks/${s.id}/deliveries/${delivery.webhook_id}/redeliver`);
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ webhook_id: delivery.webhook_id, status: 'pending' });
    await waitFor(() => receiver.at(s.path).length === 2, 5000, 'redelivery');
    const [first, again] = receiver.at(s.path);
    expect(again.body.equals(first.body)).toBe(true);
    expect(again.headers['x-svc-delivery']).toBe(delivery.webhook_id);
    await waitFor(async () => (await deliveries(p, s.id))[0].attempts === 2, 3000, 'second attempt recorded');

    const missing = await p.http.post(`/api/connect/webhooks/${s.id}/deliveries/whd_nope/redeliver`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('delivery_not_found');
  });
});
