import { Injectable, Logger } from '@nestjs/common';
import { errorMessage } from '../common/error-message';
import { DomainError } from '../common/errors';
import { offsetOf, pageOf } from '../common/pagination';
import { Scope } from '../common/scope';
import { ListDeliveriesQuery, RecoverDeliveriesDto } from './dto/delivery.dto';
import { toDeliveryDetailView, toDeliveryView } from './webhook.mapper';
import { WebhookQueue } from './webhook-queue';
import { DeliveryFilter, WebhookDelivery, WebhookSubscription, WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

const ENQUEUE_PAGE = 1000;

/** The partner's delivery log of one subscription, its attempt history, manual redelivery and recovery. */
@Injectable()
export class WebhookDeliveriesService {
  private readonly logger = new Logger(WebhookDeliveriesService.name);

  constructor(
    private readonly repo: WebhooksRepository,
    private readonly webhooks: WebhooksService,
    private readonly queue: WebhookQueue,
  ) {}

  async list(scope: Scope, webhookId: string, query: ListDeliveriesQuery) {
    const sub = await this.webhooks.find(scope, webhookId);
    const [items, total] = await this.repo.pageDeliveries(scope, sub.id, offsetOf(query), query.limit);
    return pageOf('deliveries', items.map(toDeliveryView), total, query);
  }

  /** The scope's delivery log across its subscriptions, filtered, newest first; each item names its subscription. */
  async search(scope: Scope, filter: DeliveryFilter, page: { page: number; limit: number }) {
    const [items, total] = await this.repo.searchDeliveries(scope, filter, offsetOf(page), page.limit);
    return pageOf(
      'deliveries',
      items.map((d) => ({ ...toDeliveryView(d), subscription_id: d.subscriptionId })),
      total,
      page,
    );
  }

  /** One delivery with the exact body sent and every attempt, oldest first. */
  async get(scope: Scope, webhookId: string, deliveryId: string) {
    const sub = await this.webhooks.find(scope, webhookId);
    const delivery = await this.findDelivery(scope, sub, deliveryId);
    const attempts = await this.repo.attemptsOf(delivery.id);
    return toDeliveryDetailView(delivery, attempts);
  }

  /**
   * Sends the same stored bytes with the same webhook_id again, whatever the delivery's state, through a fresh job
   * (the original job id may still be kept by the queue). A disabled subscription sends nothing: 409 webhook_disabled.
   */
  async redeliver(scope: Scope, webhookId: string, deliveryId: string) {
    const sub = await this.webhooks.find(scope, webhookId);
    const delivery = await this.findDelivery(scope, sub, deliveryId);
    if (sub.status !== 'active') throw new DomainError('webhook_disabled', { status: sub.status, disabled_reason: sub.disabledReason });
    await this.repo.resetForRedelivery(delivery.id);
    try {
      await this.queue.enqueue([delivery.id], `-r${Date.now().toString(36)}`);
    } catch {
      throw new DomainError('service_unavailable');
    }
    return toDeliveryView((await this.repo.findDelivery(scope, delivery.id))!);
  }

  /**
   * Recovery: every failed or skipped delivery of the subscription created since `since` becomes pending
   * again (a new retry schedule, same webhook_id and bytes) in one statement, then is queued. Once the rows are
   * pending, PostgreSQL holds the promise: if Redis refuses the jobs, the worker's sweep sends them (section 20).
   */
  async recover(scope: Scope, webhookId: string, dto: RecoverDeliveriesDto): Promise<{ requeued: number }> {
    const sub = await this.webhooks.find(scope, webhookId);
    if (sub.status !== 'active') throw new DomainError('webhook_disabled', { status: sub.status, disabled_reason: sub.disabledReason });
    const ids = await this.repo.resetFailedSince(scope, sub.id, new Date(dto.since));
    const suffix = `-r${Date.now().toString(36)}`;
    try {
      for (let i = 0; i < ids.length; i += ENQUEUE_PAGE) await this.queue.enqueue(ids.slice(i, i + ENQUEUE_PAGE), suffix);
    } catch (err) {
      this.logger.warn(
        { err: errorMessage(err), subscription: sub.id, deliveries: ids.length },
        'Recovered deliveries left to the delivery sweep: enqueue failed',
      );
    }
    return { requeued: ids.length };
  }

  private async findDelivery(scope: Scope, sub: WebhookSubscription, deliveryId: string): Promise<WebhookDelivery> {
    const delivery = /^whd_[0-9A-Za-z]{1,36}$/.test(deliveryId) ? await this.repo.findDeliveryOf(scope, sub.id, deliveryId) : null;
    if (!delivery) throw new DomainError('delivery_not_found');
    return delivery;
  }
}
