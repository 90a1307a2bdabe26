import type { DomainEvent } from '../../src/events/event-map';
import type { OutboxService } from '../../src/events/outbox.service';
import { WebhookFanOut } from '../../src/webhooks/webhook-fan-out.service';
import type { WebhookQueue } from '../../src/webhooks/webhook-queue';
import type { NewDelivery, SubscriptionMatch, WebhooksRepository } from '../../src/webhooks/webhooks.repository';

const event = (id: string): DomainEvent<'course.enrolled'> => ({
  id,
  type: 'course.enrolled',
  partnerId: 7,
  mode: 'test',
  payload: {
    enrollment_id: 1,
    user_id: 2,
    external_user_id: 'ext-2',
    course_id: 3,
    course_title: 'Course',
    credits_deducted: 5,
    enrolled_at: '2026-11-27T00:00:00.000Z',
  },
  occurredAt: new Date('2026-11-27T00:00:00.000Z'),
});

/** The fan-out over stubs that record every call in order (the statements and the enqueue). */
function fanOutWith(matches: SubscriptionMatch[]) {
  const calls: string[] = [];
  const inserted: NewDelivery[][] = [];
  const repo = {
    subscriptionsMatching: (events: DomainEvent[]) => {
      calls.push(`match ${events.length}`);
      return Promise.resolve(matches);
    },
    insertDeliveries: (rows: NewDelivery[], eventIds: string[]) => {
      calls.push(`insert ${rows.length} of ${eventIds.length}`);
      inserted.push(rows);
      return Promise.resolve(rows.filter((r) => r.status === 'pending').map((r) => r.id));
    },
  } as unknown as WebhooksRepository;
  const queue = {
    enqueueFirstAttempts: (ids: string[]) => {
      calls.push(`enqueue ${ids.length}`);
      return Promise.resolve();
    },
  } as unknown as WebhookQueue;
  const outbox = {
    markDispatched: (ids: string[]) => {
      calls.push(`dispatched ${ids.join(',')}`);
      return Promise.resolve();
    },
  } as unknown as OutboxService;
  return { fanOut: new WebhookFanOut(repo, queue, outbox), calls, inserted };
}

describe('WebhookFanOut', () => {
  it('spends one statement on events no subscription matches, then marks them dispatched', async () => {
    const { fanOut, calls } = fanOutWith([]);
    await fanOut.dispatch([event('evt_a'), event('evt_b')]);
    expect(calls).toEqual(['match 2', 'enqueue 0', 'dispatched evt_a,evt_b']);
  });

  it('inserts one delivery per match (skipped for a disabled subscription), enqueues the pending ones, then marks the events dispatched', async () => {
    const { fanOut, calls, inserted } = fanOutWith([
      { subscription_id: 'whs_on', active: true, idx: 2 },
      { subscription_id: 'whs_off', active: false, idx: 2 },
    ]);
    await fanOut.dispatch([event('evt_a'), event('evt_b')]);
    expect(calls).toEqual(['match 2', 'insert 2 of 2', 'enqueue 1', 'dispatched evt_a,evt_b']);
    const [on, off] = inserted[0];
    expect(on).toMatchObject({ subscriptionId: 'whs_on', eventId: 'evt_b', status: 'pending', eventType: 'course.enrolled' });
    expect(off).toMatchObject({ subscriptionId: 'whs_off', eventId: 'evt_b', status: 'skipped' });
    // The body is the envelope, serialised once, naming its own delivery.
    expect(JSON.parse(on.body)).toEqual({ event: 'course.enrolled', timestamp: '2026-11-27T00:00:00.000Z', webhook_id: on.id, data: event('evt_b').payload });
  });
});
