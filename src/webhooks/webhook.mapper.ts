import type { DeliveryAttemptDto, DeliveryDetailDto, DeliveryDto } from './dto/delivery.dto';
import type { WebhookDto } from './dto/webhook.dto';
import type { WebhookAttempt, WebhookDelivery, WebhookSubscription } from './webhooks.repository';

/** The secret never leaves the service: it is not part of any view. */
export function toWebhookView(s: WebhookSubscription): WebhookDto {
  return {
    id: s.id,
    url: s.url,
    events: s.events,
    status: s.status,
    disabled_reason: s.disabledReason,
    previous_secret_expires_at: s.previousSecretExpiresAt && s.previousSecretExpiresAt.getTime() > Date.now() ? s.previousSecretExpiresAt.toISOString() : null,
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

/** The delivery with the exact body sent (parsed) and every attempt, oldest first. */
export function toDeliveryDetailView(d: WebhookDelivery, attempts: WebhookAttempt[]): DeliveryDetailDto {
  return {
    webhook_id: d.id,
    event: d.eventType,
    status: d.status,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    created_at: d.createdAt.toISOString(),
    delivered_at: d.deliveredAt?.toISOString() ?? null,
    next_attempt_at: d.nextAttemptAt?.toISOString() ?? null,
    payload: JSON.parse(d.body) as Record<string, unknown>,
    attempts: attempts.map(toAttemptView),
  };
}

function toAttemptView(a: WebhookAttempt): DeliveryAttemptDto {
  return {
    attempted_at: a.attemptedAt.toISOString(),
    status_code: a.statusCode,
    duration_ms: a.durationMs,
    error: a.error,
    response_excerpt: a.responseBody,
    request_headers: a.requestHeaders,
  };
}
