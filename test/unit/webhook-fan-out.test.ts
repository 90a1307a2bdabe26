import type { DomainEvent } from '../../src/events/event-map';
import type { OutboxService } from '../../src/events/outbox.service';
import { WebhookFanOut } from '../../src/webhooks/webhook-fan-out.service';
import type { WebhookQueue } from '../../src/webhooks/webhook-queue';
import { deliveryIdOf, type WebhooksRepository } from '../../src/webhooks/webhooks.repository';

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

/** The fan-out over stubs that record every call in order (the statement and the enqueue). */
function fanOutWith(pending: string[]) {
  const calls: string[] = [];
  const repo = {
    fanOut: (events: DomainEvent[]) => {
      calls.push(`fan-out ${events.map((e) => e.id).join(',')}`);
      return Promise.resolve(pending);
    },
  } as unknown as WebhooksRepository;
  const queue = {
    enqueueFirstAttempts: (ids: string[]) => {
      calls.push(`enqueue ${ids.join(',')}`);
      return Promise.resolve();
    },
  } as unknown as WebhookQueue;
  const outbox = {
    markDispatched: (ids: string[]) => {
      calls.push(`dispatched ${ids.join(',')}`);
      return Promise.resolve();
    },
  } as unknown as OutboxService;
  return { fanOut: new WebhookFanOut(repo, queue, outbox), calls };
}

describe('WebhookFanOut', () => {
  it('spends one statement on events no subscription matches, then marks them dispatched', async () => {
    const { fanOut, calls } = fanOutWith([]);
    await fanOut.dispatch([event('evt_a'), event('evt_b')]);
    expect(calls).toEqual(['fan-out evt_a,evt_b', 'enqueue ', 'dispatched evt_a,evt_b']);
  });

  it('makes the deliveries in one statement, enqueues the pending ones, then marks the events dispatched', async () => {
    const { fanOut, calls } = fanOutWith(['whd_1', 'whd_2']);
    await fanOut.dispatch([event('evt_a'), event('evt_b')]);
    expect(calls).toEqual(['fan-out evt_a,evt_b', 'enqueue whd_1,whd_2', 'dispatched evt_a,evt_b']);
  });

  it('sends nothing for no events', async () => {
    const { fanOut, calls } = fanOutWith(['whd_1']);
    expect(await fanOut.createDeliveries([])).toEqual([]);
    expect(calls).toEqual([]);
  });
});

describe('deliveryIdOf', () => {
  it('derives a delivery id of the usual shape from the event and the subscription, the same every time', () => {
    const id = deliveryIdOf('evt_1', 'whk_2');
    expect(id).toBe('whd_kMp0NUicy47l5ENDR348T0'); // what PostgreSQL's derivation in the fan-out statement gives
    expect(id).toMatch(/^whd_[0-9A-Za-z]{22}$/);
    expect(deliveryIdOf('evt_1', 'whk_2')).toBe(id);
    expect(deliveryIdOf('evt_1', 'whk_3')).not.toBe(id);
    expect(deliveryIdOf('evt_2', 'whk_2')).not.toBe(id);
  });
});
