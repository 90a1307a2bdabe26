import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { Batcher } from '../common/batcher';
import { errorMessage } from '../common/error-message';
import { DomainEvent, EVENTS_COMMITTED } from '../events/event-map';
import { WebhookFanOut } from './webhook-fan-out.service';

/**
 * A failed fan-out is tried again after these delays before its events are left to the outbox relay: a pool or
 * statement time-out on a loaded machine, a lock, a Redis blip pass in well under a second, and the relay's next pass
 * (WEBHOOK_RELAY_INTERVAL_MS, plus its grace) is far later than that.
 */
export const FAN_OUT_RETRY_DELAYS_MS = [100, 400, 1500, 4000];

/**
 * Small on purpose: after a commit it only fans out and enqueues; the relay covers a crash, or a fan-out whose retries
 * all failed. Events committed while a fan-out is running go out together in the next one (its statements and enqueue
 * are per batch, not per event); an event committed when nothing is running goes out at once.
 *
 * Marking events dispatched is a commit of its own (a WAL flush) that no delivery waits for, so it runs outside the
 * fan-out's batches, which then take the next events one flush sooner; marks that come together go out as one.
 */
@Injectable()
export class WebhookEventsListener implements BeforeApplicationShutdown {
  private readonly logger = new Logger(WebhookEventsListener.name);
  private readonly batches = new Batcher<DomainEvent, void>((events) => this.dispatch(events), { maxBatch: 500, maxInFlight: 2 });
  private readonly marks = new Batcher<string, void>((ids) => this.markDispatched(ids), { maxBatch: 5000, maxInFlight: 1 });
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly retries = new Set<NodeJS.Timeout>();
  private stopping = false;

  constructor(private readonly fanOut: WebhookFanOut) {}

  @OnEvent(EVENTS_COMMITTED)
  onCommitted(events: DomainEvent[]): void {
    for (const event of events) this.track(this.batches.call(event));
  }

  /**
   * On shutdown, while the pools are still open: dispatch what is waiting, so nothing waits for the relay needlessly.
   * Retries not yet due are dropped: their events stay undispatched, for the relay of a running worker.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    for (const timer of this.retries) clearTimeout(timer);
    this.retries.clear();
    // A fan-out that finishes meanwhile adds its marks: wait for those too.
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  private track(call: Promise<unknown>): void {
    const tracked = call.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  /** Never rejects: a failed fan-out is tried again shortly, outside the batch (which frees its slot for new events). */
  private async dispatch(events: DomainEvent[], retry = 0): Promise<void[]> {
    try {
      await this.fanOut.deliver(events);
    } catch (err) {
      this.retryLater(events, retry, err);
      return events.map(() => undefined);
    }
    for (const event of events) this.track(this.marks.call(event.id));
    return events.map(() => undefined);
  }

  /**
   * Never rejects. A mark that failed leaves its events to the relay, which finds their deliveries made and enqueued
   * already: it only enqueues again the ones still pending (same job ids) and marks the events.
   */
  private async markDispatched(ids: string[]): Promise<void[]> {
    try {
      await this.fanOut.markDispatched(ids);
    } catch (err) {
      this.logger.warn({ err: errorMessage(err), events: ids.length }, 'Marking webhook events dispatched failed; left to the outbox relay');
    }
    return ids.map(() => undefined);
  }

  private retryLater(events: DomainEvent[], retry: number, err: unknown): void {
    const delay = FAN_OUT_RETRY_DELAYS_MS[retry];
    if (delay === undefined || this.stopping) {
      this.logger.warn({ err: errorMessage(err), events: events.map((e) => e.id) }, 'Webhook fan-out deferred to the outbox relay');
      return;
    }
    this.logger.warn({ err: errorMessage(err), events: events.length, retryInMs: delay }, 'Webhook fan-out failed; trying again');
    const timer = setTimeout(() => {
      this.retries.delete(timer);
      this.track(this.dispatch(events, retry + 1));
    }, delay);
    this.retries.add(timer);
  }
}
