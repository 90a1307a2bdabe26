import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { errorMessage } from '../common/error-message';
import { DomainError } from '../common/errors';
import { offsetOf, pageOf } from '../common/pagination';
import { Scope, scoped } from '../common/scope';
import { ListDeliveriesQuery, RecoverDeliveriesDto } from './dto/delivery.dto';
import { toDeliveryDetailView, toDeliveryView } from './webhook.mapper';
import { WebhookAttempt } from './webhook-attempt.entity';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookQueue } from './webhook-queue';
import type { WebhookSubscription } from './webhook-subscription.entity';
import { WebhooksService } from './webhooks.service';

const ENQUEUE_PAGE = 1000;

/** The partner's delivery log of one subscription, its attempt history, manual redelivery and recovery. */
@Injectable()
export class WebhookDeliveriesService {
  private readonly logger = new Logger(WebhookDeliveriesService.name);

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

  /** One delivery with the exact body sent and every attempt, oldest first (contract section 15). */
  async get(scope: Scope, webhookId: string, deliveryId: string) {
    const sub = await this.webhooks.find(this.dataSource.manager, scope, webhookId);
    const delivery = await this.findDelivery(scope, sub, deliveryId);
    const attempts = await this.dataSource.getRepository(WebhookAttempt).find({ where: { deliveryId: delivery.id }, order: { attemptedAt: 'ASC', id: 'ASC' } });
    return toDeliveryDetailView(delivery, attempts);
  }

  /**
   * Sends the same stored bytes with the same webhook_id again, whatever the delivery's state, through a fresh job
   * (the original job id may still be kept by the queue). A disabled subscription sends nothing: 409 webhook_disabled.
   */
  async redeliver(scope: Scope, webhookId: string, deliveryId: string) {
    const sub = await this.webhooks.find(this.dataSource.manager, scope, webhookId);
    const delivery = await this.findDelivery(scope, sub, deliveryId);
    if (sub.status !== 'active') throw new DomainError('webhook_disabled', { status: sub.status, disabled_reason: sub.disabledReason });
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
    return toDeliveryView((await scoped(this.dataSource.manager, scope).findOne(WebhookDelivery, { id: delivery.id }))!);
  }

  /**
   * Contract section 15: every failed or skipped delivery of the subscription created since `since` becomes pending
   * again (a new retry schedule, same webhook_id and bytes) in one statement, then is queued. Once the rows are
   * pending, PostgreSQL holds the promise: if Redis refuses the jobs, the worker's sweep sends them (section 20).
   */
  async recover(scope: Scope, webhookId: string, dto: RecoverDeliveriesDto): Promise<{ requeued: number }> {
    const sub = await this.webhooks.find(this.dataSource.manager, scope, webhookId);
    if (sub.status !== 'active') throw new DomainError('webhook_disabled', { status: sub.status, disabled_reason: sub.disabledReason });
    // A CTE, so the driver answers rows (a bare UPDATE … RETURNING comes back as [rows, count]).
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `WITH r AS (
         UPDATE webhook_deliveries SET status = 'pending', delivered_at = NULL, next_attempt_at = now(), retry_base = attempts
          WHERE subscription_id = $1 AND partner_id = $2 AND mode = $3 AND status IN ('failed', 'skipped') AND created_at >= $4
          RETURNING id, created_at)
       SELECT id FROM r ORDER BY created_at, id`,
      [sub.id, scope.partnerId, scope.mode, new Date(dto.since)],
    );
    const suffix = `-r${Date.now().toString(36)}`;
    try {
      for (let i = 0; i < rows.length; i += ENQUEUE_PAGE)
        await this.queue.enqueue(
          rows.slice(i, i + ENQUEUE_PAGE).map((r) => r.id),
          suffix,
        );
    } catch (err) {
      this.logger.warn(
        { err: errorMessage(err), subscription: sub.id, deliveries: rows.length },
        'Recovered deliveries left to the delivery sweep: enqueue failed',
      );
    }
    return { requeued: rows.length };
  }

  private async findDelivery(scope: Scope, sub: WebhookSubscription, deliveryId: string): Promise<WebhookDelivery> {
    const delivery = /^whd_[0-9A-Za-z]{1,36}$/.test(deliveryId)
      ? await scoped(this.dataSource.manager, scope).findOne(WebhookDelivery, { id: deliveryId, subscriptionId: sub.id })
      : null;
    if (!delivery) throw new DomainError('delivery_not_found');
    return delivery;
  }
}
