import { newId } from '../../src/common/ids';
import type { DomainEvent } from '../../src/events/event-map';
import { deliveryIdOf } from '../../src/webhooks/webhooks.repository';
import { DeliverySweep } from '../../src/webhooks/worker/delivery-sweep.service';
import { OutboxRelay } from '../../src/webhooks/worker/outbox-relay.service';
import { startApp, TestApp } from '../support/app';
import { createPartner, CreatedPartner, unique } from '../support/factories';
import { insertUnpublishedEvent, isDispatched, recordEvents, scopeOf } from '../support/webhook-events';
import { waitFor, WebhookReceiver } from '../support/webhook-receiver';

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await new WebhookReceiver().start();
});
afterAll(() => receiver.stop());

async function subscribe(t: TestApp, p: CreatedPartner): Promise<string> {
  const path = `/${unique('hook')}`;
  const res = await p.http.post('/api/connect/webhooks', { url: receiver.url(path), events: ['user.registered'], secret: 'outbox-secret-0123456789' });
  expect(res.status).toBe(201);
  return path;
}

const distinctDeliveries = (path: string) => new Set(receiver.at(path).map((r) => r.headers['x-svc-delivery'])).size;

describe('transactional outbox and relay', () => {
  it('delivers an event that was committed but never published (crash or Redis down before the enqueue)', async () => {
    const t = await startApp();
    try {
      const p = await createPartner(t);
      const path = await subscribe(t, p);
      const id = newId('evt');
      await insertUnpublishedEvent(t, scopeOf(p), 'user.registered', id);
      await waitFor(() => receiver.at(path).length === 1, 8000, 'the relay to deliver');
      expect(JSON.parse(receiver.at(path)[0].body.toString()).event).toBe('user.registered');
      // The relay marks the event in its own transaction, which may commit after the worker has sent the delivery.
      const dispatched = () => isDispatched(t, id);
      await waitFor(dispatched, 8000, 'the relay to mark the event dispatched');
    } finally {
      await t.close();
    }
  });

  it('never dispatches an event twice when relays sweep concurrently', async () => {
    const t = await startApp();
    try {
      const p = await createPartner(t);
      const path = await subscribe(t, p);
      for (let i = 0; i < 30; i++) await insertUnpublishedEvent(t, scopeOf(p), 'user.registered', newId('evt'));
      const relay = t.app.get(OutboxRelay);
      await Promise.all([relay.sweep(), relay.sweep(), relay.sweep()]);
      await waitFor(() => distinctDeliveries(path) === 30, 8000, '30 deliveries');
      const [{ n }] = await t.db.query(
        `SELECT count(*)::int AS n FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE s.partner_id = $1`,
        [p.partnerId],
      );
      expect(n).toBe(30);
      expect(receiver.at(path)).toHaveLength(30);
    } finally {
      await t.close();
    }
  });

  it('loses nothing when the worker stops mid-run and a new one starts', async () => {
    // Every first attempt fails and is scheduled for a retry 4 s later, so the first app stops with all
    // twenty deliveries still owed, held only by Redis and PostgreSQL, whatever the machine's load.
    const slowRetry = { WEBHOOK_RETRY_DELAYS_MS: '4000,300,300' };
    const first = await startApp(slowRetry);
    const p = await createPartner(first);
    const path = await subscribe(first, p);
    for (let i = 0; i < 20; i++) receiver.script(path, { status: 503 });
    const recorded: DomainEvent[] = [];
    for (let i = 0; i < 20; i++) recorded.push(...(await recordEvents(first, scopeOf(p), 'user.registered')));
    const ids = recorded.map((e) => e.id);
    const deliveredCount = async (t: TestApp): Promise<number> => {
      const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = ANY ($1) AND status = 'delivered'`, [ids]);
      return n;
    };
    await waitFor(() => distinctDeliveries(path) === 20, 10_000, 'a first attempt of all 20 events');
    const deliveredByFirst = await deliveredCount(first);
    await first.close();

    const second = await startApp(slowRetry);
    try {
      await waitFor(async () => (await deliveredCount(second)) === 20, 20_000, 'all 20 delivered');
      expect(deliveredByFirst).toBeLessThan(20); // the first app really stopped with work left
      expect(distinctDeliveries(path)).toBe(20);
      expect(receiver.at(path).length).toBeGreaterThanOrEqual(40); // a failed attempt and a delivered retry of each
    } finally {
      await second.close();
    }
    // Two app start-ups and up to 30 s of waiting for the deliveries.
  }, 90_000);

  it('makes the same delivery again when its rows were lost after it was sent (its commit is asynchronous)', async () => {
    const t = await startApp();
    try {
      const p = await createPartner(t);
      const path = await subscribe(t, p);
      const [{ id: subscriptionId }] = await t.db.query<Array<{ id: string }>>(`SELECT id FROM webhook_subscriptions WHERE partner_id = $1`, [p.partnerId]);
      const [event] = await recordEvents(t, scopeOf(p), 'user.registered');
      await waitFor(() => receiver.at(path).length === 1, 8000, 'the first delivery');
      const first = receiver.at(path)[0];
      // The id is derived from the event and the subscription; the body is the envelope as the fan-out always made it.
      const deliveryId = deliveryIdOf(event.id, subscriptionId);
      expect(first.headers['x-svc-delivery']).toBe(deliveryId);
      expect(first.body.toString()).toBe(
        JSON.stringify({ event: 'user.registered', timestamp: event.occurredAt.toISOString(), webhook_id: deliveryId, data: event.payload }),
      );
      await waitFor(() => isDispatched(t, event.id), 8000, 'the event marked dispatched');
      // A PostgreSQL crash before the WAL writer flushed the fan-out's rows and the event's mark: both are gone.
      await t.db.query(`DELETE FROM webhook_deliveries WHERE event_id = $1`, [event.id]);
      await t.db.query(`INSERT INTO events_undispatched (event_id, created_at) VALUES ($1, now() - interval '5 seconds')`, [event.id]);
      await t.app.get(OutboxRelay).sweep();
      await waitFor(() => receiver.at(path).length === 2, 8000, 'the delivery made again by the relay');
      const again = receiver.at(path)[1];
      // Sent again under the same webhook_id, which the receiver has seen: at least once, never a second identity.
      expect(again.headers['x-svc-delivery']).toBe(deliveryId);
      expect(JSON.parse(again.body.toString())).toEqual(JSON.parse(first.body.toString()));
    } finally {
      await t.close();
    }
  });

  it('marks an event no subscription matches dispatched without creating a delivery', async () => {
    const t = await startApp();
    try {
      const p = await createPartner(t);
      await subscribe(t, p); // user.registered only
      const [event] = await recordEvents(t, scopeOf(p), 'course.enrolled');
      const dispatched = () => isDispatched(t, event.id);
      await waitFor(dispatched, 8000, 'the in-process fan-out to mark the event dispatched');
      const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = $1`, [event.id]);
      expect(n).toBe(0);
    } finally {
      await t.close();
    }
  });

  it('leaves a delivery an earlier try left pending, for a subscription that no longer matches, to the delivery sweep', async () => {
    // The app's own delivery sweep stays out of the way: the sweep this test runs is the one that must send it.
    const t = await startApp({ WEBHOOK_SWEEP_INTERVAL_MS: '600000' });
    try {
      const p = await createPartner(t);
      const path = `/${unique('hook')}`;
      const created = await p.http.post('/api/connect/webhooks', { url: receiver.url(path), events: ['user.registered'], secret: 'outbox-secret-0123456789' });
      expect(created.status).toBe(201);
      const subscriptionId = (created.body as { data: { id: string } }).data.id;
      // The subscription no longer matches the event by the time the relay comes round. Narrowed before the event is
      // written: the app's own relay (every second) may claim the event at any moment from then on.
      expect((await p.http.patch(`/api/connect/webhooks/${subscriptionId}`, { events: ['course.enrolled'] })).status).toBe(200);
      // An earlier try: the event committed, its delivery created, then the process died before the enqueue.
      const eventId = newId('evt');
      await insertUnpublishedEvent(t, scopeOf(p), 'user.registered', eventId);
      const deliveryId = newId('whd');
      const body = JSON.stringify({ event: 'user.registered', timestamp: new Date().toISOString(), webhook_id: deliveryId, data: {} });
      await t.db.query(
        `INSERT INTO webhook_deliveries (id, subscription_id, event_id, partner_id, mode, event_type, body, status, created_at)
         VALUES ($1, $2, $3, $4, $5, 'user.registered', $6, 'pending', now() - interval '10 seconds')`,
        [deliveryId, subscriptionId, eventId, p.partnerId, p.mode, body],
      );
      await t.app.get(OutboxRelay).sweep();
      const dispatched = () => isDispatched(t, eventId);
      await waitFor(dispatched, 8000, 'the relay to dispatch the event');
      // The relay created nothing and enqueued nothing: the leftover is still pending and unsent; the sweep sends it.
      const [leftover] = await t.db.query(`SELECT status FROM webhook_deliveries WHERE id = $1`, [deliveryId]);
      expect(leftover.status).toBe('pending');
      expect(receiver.at(path)).toHaveLength(0);
      expect(await t.app.get(DeliverySweep).sweep()).toBe(1);
      await waitFor(() => receiver.at(path).length === 1, 8000, 'the swept delivery');
      expect(receiver.at(path)[0].headers['x-svc-delivery']).toBe(deliveryId);
      const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = $1`, [eventId]);
      expect(n).toBe(1);
    } finally {
      await t.close();
    }
  });
});
