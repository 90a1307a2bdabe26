import { Injectable, Logger } from '@nestjs/common';
import { errorMessage } from '../common/error-message';
import { DomainError } from '../common/errors';
import { newId } from '../common/ids';
import type { Scope } from '../common/scope';
import { OutboxService } from '../events/outbox.service';
import { TransactionRunner } from '../events/transaction-runner';
import { toDeliveryView } from './webhook.mapper';
import { WebhookQueue } from './webhook-queue';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/** The event type of a test delivery: never one of the nine business events, so no receiver acts on it by mistake. */
export const TEST_EVENT_TYPE = 'webhook.test';

/**
 * "Send a test event": one delivery of a `webhook.test` event to one subscription, whatever events it lists, signed
 * and retried like any other. Its event is recorded already dispatched, so the fan-out never sends it elsewhere.
 */
@Injectable()
export class WebhookTestEvents {
  private readonly logger = new Logger(WebhookTestEvents.name);

  constructor(
    private readonly runner: TransactionRunner,
    private readonly outbox: OutboxService,
    private readonly repo: WebhooksRepository,
    private readonly webhooks: WebhooksService,
    private readonly queue: WebhookQueue,
  ) {}

  async send(scope: Scope, subscriptionId: string) {
    const sub = await this.webhooks.find(scope, subscriptionId);
    if (sub.status !== 'active') throw new DomainError('webhook_disabled', { status: sub.status, disabled_reason: sub.disabledReason });
    const occurredAt = new Date();
    const eventId = newId('evt');
    const deliveryId = newId('whd');
    const data = { webhook_subscription_id: sub.id, message: 'A test event sent from the dashboard or the API.', sent_at: occurredAt.toISOString() };
    const body = JSON.stringify({ event: TEST_EVENT_TYPE, timestamp: occurredAt.toISOString(), webhook_id: deliveryId, data });
    await this.runner.run(async (tx) => {
      await this.outbox.appendDispatched(tx.em, { id: eventId, ...scope, type: TEST_EVENT_TYPE, payload: data, occurredAt });
      await this.repo.insertDeliveries(
        [{ id: deliveryId, subscriptionId: sub.id, eventId, ...scope, eventType: TEST_EVENT_TYPE, body, status: 'pending' }],
        [eventId],
        tx.em,
      );
    });
    // The answer is the delivery as queued, read before the job exists: read after, it could be sent already.
    const view = toDeliveryView((await this.repo.findDelivery(scope, deliveryId))!);
    // Committed as pending: should Redis refuse the job, the delivery sweep sends it.
    await this.queue
      .enqueue([deliveryId])
      .catch((err: unknown) => this.logger.warn({ err: errorMessage(err), delivery: deliveryId }, 'Test delivery left to the delivery sweep: enqueue failed'));
    return view;
  }
}
