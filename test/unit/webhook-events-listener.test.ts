import type { DomainEvent } from '../../src/events/event-map';
import { WebhookEventsListener } from '../../src/webhooks/webhook-events.listener';
import type { WebhookFanOut } from '../../src/webhooks/webhook-fan-out.service';

const event = (id: string): DomainEvent<'credits.purchased'> => ({
  id,
  type: 'credits.purchased',
  partnerId: 7,
  mode: 'test',
  payload: {
    transaction_id: 'ctx_1',
    user_id: 2,
    external_user_id: 'ext-2',
    amount: 5,
    payment_reference: 'ref',
    source: 'api',
    credits: 5,
    purchased_at: '2026-11-27T00:00:00.000Z',
  },
  occurredAt: new Date('2026-11-27T00:00:00.000Z'),
});

/** Lets the listener's batches (one setImmediate each) and their promises run. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

/** A fan-out stub that records calls in order; marks wait until `releaseMarks` is called, or fail with `markError`. */
function listenerWith(options: { markError?: Error } = {}) {
  const calls: string[] = [];
  let releaseMarks!: () => void;
  const marksReleased = new Promise<void>((r) => (releaseMarks = r));
  const fanOut = {
    deliver: (events: DomainEvent[]) => {
      calls.push(`deliver ${events.map((e) => e.id).join(',')}`);
      return Promise.resolve();
    },
    markDispatched: async (ids: string[]) => {
      calls.push(`mark ${ids.join(',')}`);
      await marksReleased;
      if (options.markError) throw options.markError;
      calls.push(`marked ${ids.join(',')}`);
    },
  } as unknown as WebhookFanOut;
  return { listener: new WebhookEventsListener(fanOut), calls, releaseMarks };
}

describe('WebhookEventsListener', () => {
  it('fans out the next events while earlier ones are still being marked dispatched, and marks only after enqueueing', async () => {
    const { listener, calls, releaseMarks } = listenerWith();
    listener.onCommitted([event('evt_a')]);
    await settle();
    listener.onCommitted([event('evt_b')]);
    await settle();
    expect(calls).toEqual(['deliver evt_a', 'mark evt_a', 'deliver evt_b']);
    releaseMarks();
    await listener.beforeApplicationShutdown();
    expect(calls).toEqual(['deliver evt_a', 'mark evt_a', 'deliver evt_b', 'marked evt_a', 'mark evt_b', 'marked evt_b']);
  });

  it('leaves events whose mark failed to the outbox relay without failing anything', async () => {
    const { listener, calls, releaseMarks } = listenerWith({ markError: new Error('connection terminated') });
    listener.onCommitted([event('evt_a'), event('evt_b')]);
    await settle();
    releaseMarks();
    await expect(listener.beforeApplicationShutdown()).resolves.toBeUndefined();
    expect(calls).toEqual(['deliver evt_a,evt_b', 'mark evt_a,evt_b']);
  });

  it('on shutdown, waits for the marks of a fan-out that finishes meanwhile', async () => {
    const { listener, calls, releaseMarks } = listenerWith();
    listener.onCommitted([event('evt_a')]);
    const stopped = listener.beforeApplicationShutdown();
    await settle();
    expect(calls).toEqual(['deliver evt_a', 'mark evt_a']);
    releaseMarks();
    await stopped;
    expect(calls).toEqual(['deliver evt_a', 'mark evt_a', 'marked evt_a']);
  });
});
