import type { DeliveryDto } from './dto/delivery.dto';
import type { WebhookDto } from './dto/webhook.dto';
import type { WebhookDelivery } from './webhook-delivery.entity';
import type { WebhookSubscription } from './webhook-subscription.entity';

/** The secret never leaves the service: it is not part of any view. */
export function toWebhookView(s: WebhookSubscription): WebhookDto {
  return {
    id: s.id,
    url: s.url,
    events: s.events,
    status: s.status,
    disabled_reason: s.disabledReason,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}

export function toDeliveryView(d: WebhookDelivery): DeliveryDto {
  return {
    webhook_id: d.id,
    event: d.eventType,
    status: d.status,
    attempts: d.attempts,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    created_at: d.createdAt.toISOString(),
    delivered_at: d.deliveredAt?.toISOString() ?? null,
    next_attempt_at: d.nextAttemptAt?.toISOString() ?? null,
  };
}
