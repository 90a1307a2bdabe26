import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DomainError } from '../common/errors';
import { offsetOf, pageOf } from '../common/pagination';
import { Scope, scoped } from '../common/scope';
import { ListDeliveriesQuery } from './dto/delivery.dto';
import { toDeliveryView } from './webhook.mapper';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookQueue } from './webhook-queue';
import { WebhooksService } from './webhooks.service';

/** The partner's delivery log of one subscription, and manual redelivery. */
@Injectable()
export class WebhookDeliveriesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly webhooks: WebhooksService,
    private readonly queue: WebhookQueue,
  ) {}

  async list(scope: Scope, webhookId: string, query: ListDeliveriesQuery) {
    const sub = await this.webhooks.find(this.dataSource.manager, scope, webhookId);
    const [items, total] = await scoped(this.dataSource.manager, scope)
      .query(WebhookDelivery, 'd')
      .andWhere('d.subscription_id = :sid', { sid: sub.id })
      .orderBy('d.created_at', 'DESC')
      .addOrderBy('d.id', 'DESC')
      .skip(offsetOf(query))
      .take(query.limit)
      .getManyAndCount();
    return pageOf('deliveries', items.map(toDeliveryView), total, query);
  }

  /**
   * Sends the same stored bytes with the same webhook_id again, whatever the delivery's state, through a fresh job
   * (the original job id may still be kept by the queue). Deliveries of a disabled subscription fail until it is re-enabled.
   */
  async redeliver(scope: Scope, webhookId: string, deliveryId: string) {
    const sub = await this.webhooks.find(this.dataSource.manager, scope, webhookId);
    const s = scoped(this.dataSource.manager, scope);
    const delivery = /^whd_[0-9A-Za-z]{1,36}$/.test(deliveryId) ? await s.findOne(WebhookDelivery, { id: deliveryId, subscriptionId: sub.id }) : null;
    if (!delivery) throw new DomainError('delivery_not_found');
    await this.dataSource.query(
      // A new retry schedule starts from the attempts made so far.
      `UPDATE webhook_deliveries SET status = 'pending', delivered_at = NULL, next_attempt_at = now(), retry_base = attempts WHERE id = $1`,
      [delivery.id],
    );
    try {
      await this.queue.enqueue([delivery.id], `-r${Date.now().toString(36)}`);
    } catch {
      throw new DomainError('service_unavailable');
    }
    return toDeliveryView((await s.findOne(WebhookDelivery, { id: delivery.id }))!);
  }
}
