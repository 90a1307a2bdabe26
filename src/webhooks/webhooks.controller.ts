import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Auth, AuthContext, CurrentScope } from '../auth/auth-context';
import { PlanFeature } from '../auth/auth.decorators';
import { prefixedIdParam } from '../common/params';
import type { Scope } from '../common/scope';
import { ApiErrors, ApiSuccess, KEYED_ERRORS } from '../common/swagger';
import { DeliveryDto, RecoverDeliveriesDto, RecoverResultDto } from './dto/delivery.dto';
import {
  CreateWebhookDto,
  ListWebhooksQuery,
  RotateSecretDto,
  UpdateWebhookDto,
  WebhookCreatedDto,
  WebhookDeletedDto,
  WebhookDto,
  WebhookListDto,
} from './dto/webhook.dto';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookTestEvents } from './webhook-test-events.service';
import { WebhooksService } from './webhooks.service';

/** Routes with no body or query to validate; the others leave the id to WebhooksService.find (a bad body or query is 400 whatever the id). */
const subscriptionId = prefixedIdParam('whk', 'webhook_not_found');

@ApiTags('Webhooks')
@PlanFeature('webhooks')
@Controller('connect/webhooks')
export class WebhooksController {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly deliveries: WebhookDeliveriesService,
    private readonly testEvents: WebhookTestEvents,
  ) {}

  @Post()
  @ApiOperation({
    summary: 'Register a webhook endpoint',
    description:
      'Deliveries are signed with `secret`: `X-SVC-Signature: sha256=<hex HMAC of the body>` and the Standard Webhooks headers `webhook-id`, `webhook-timestamp`, `webhook-signature` (verify with any Standard Webhooks library, passing `whsec_` + base64(secret)). The secret is never returned. Starter plans may use at most 2 distinct event types across active subscriptions.',
  })
  @ApiSuccess(WebhookCreatedDto, { status: 201 })
  @ApiErrors('validation_failed', 'invalid_json', 'plan_limit_exceeded', 'unsupported_media_type', ...KEYED_ERRORS)
  create(@Auth() auth: AuthContext, @Body() dto: CreateWebhookDto) {
    return this.webhooks.create(auth, dto);
  }

  @Get()
  @ApiOperation({ summary: "List this partner's webhook subscriptions (this key's mode)" })
  @ApiSuccess(WebhookListDto)
  @ApiErrors('validation_failed', ...KEYED_ERRORS)
  list(@CurrentScope() scope: Scope, @Query() query: ListWebhooksQuery) {
    return this.webhooks.list(scope, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One webhook subscription' })
  @ApiParam({ name: 'id', example: 'whk_4f9TzQe1LmN8pR2sV6xY0a' })
  @ApiSuccess(WebhookDto)
  @ApiErrors('webhook_not_found', ...KEYED_ERRORS)
  get(@CurrentScope() scope: Scope, @Param('id', subscriptionId) id: string) {
    return this.webhooks.get(scope, id);
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Change url, events, secret or status',
    description:
      'Set `status: "active"` to re-enable a disabled subscription (after a 410, after auto-disable, or paused by you). A `secret` given here replaces the old one at once; use rotate-secret to change it without missing events.',
  })
  @ApiParam({ name: 'id', example: 'whk_4f9TzQe1LmN8pR2sV6xY0a' })
  @ApiSuccess(WebhookDto)
  @ApiErrors('validation_failed', 'invalid_json', 'webhook_not_found', 'plan_limit_exceeded', 'unsupported_media_type', ...KEYED_ERRORS)
  update(@Auth() auth: AuthContext, @Param('id') id: string, @Body() dto: UpdateWebhookDto) {
    return this.webhooks.update(auth, id, dto);
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Rotate the signing secret with an overlap',
    description:
      'The new secret signs from now on. Until `previous_secret_expires_at` (now + `previous_secret_expires_in` seconds, default 86400, at most 604800) deliveries carry both signatures: `webhook-signature: v1,<new> v1,<previous>`, `X-SVC-Signature` with the new secret and `X-SVC-Signature-Previous` with the previous one. Rotating again during an overlap drops the older previous secret.',
  })
  @ApiParam({ name: 'id', example: 'whk_4f9TzQe1LmN8pR2sV6xY0a' })
  @ApiSuccess(WebhookDto)
  @ApiErrors('validation_failed', 'invalid_json', 'webhook_not_found', 'unsupported_media_type', ...KEYED_ERRORS)
  rotateSecret(@CurrentScope() scope: Scope, @Param('id') id: string, @Body() dto: RotateSecretDto) {
    return this.webhooks.rotateSecret(scope, id, dto);
  }

  @Post(':id/recover')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send again what failed or was skipped since a time',
    description:
      'Every `failed` or `skipped` delivery of this subscription created since `since` (at most 14 days ago) is queued again with its webhook_id and bytes, with a new retry schedule (202: sent asynchronously). A disabled subscription answers 409 `webhook_disabled`: re-enable it first.',
  })
  @ApiParam({ name: 'id', example: 'whk_4f9TzQe1LmN8pR2sV6xY0a' })
  @ApiSuccess(RecoverResultDto, { status: 202 })
  @ApiErrors('validation_failed', 'invalid_json', 'webhook_not_found', 'webhook_disabled', 'unsupported_media_type', ...KEYED_ERRORS)
  recover(@CurrentScope() scope: Scope, @Param('id') id: string, @Body() dto: RecoverDeliveriesDto) {
    return this.deliveries.recover(scope, id, dto);
  }

  @Post(':id/test')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send a test event to this endpoint',
    description:
      'Sends one `webhook.test` event (data: `webhook_subscription_id`, `message`, `sent_at`) to this subscription alone, whatever event types it lists, signed and retried like every delivery; it appears in the delivery log. Use it to check your receiver and its signature verification. A disabled subscription answers 409 `webhook_disabled`.',
  })
  @ApiParam({ name: 'id', example: 'whk_4f9TzQe1LmN8pR2sV6xY0a' })
  @ApiSuccess(DeliveryDto, { status: 202 })
  @ApiErrors('webhook_not_found', 'webhook_disabled', ...KEYED_ERRORS)
  sendTest(@CurrentScope() scope: Scope, @Param('id', subscriptionId) id: string) {
    return this.testEvents.send(scope, id);
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Delete a webhook subscription and its delivery log' })
  @ApiParam({ name: 'id', example: 'whk_4f9TzQe1LmN8pR2sV6xY0a' })
  @ApiSuccess(WebhookDeletedDto)
  @ApiErrors('webhook_not_found', ...KEYED_ERRORS)
  remove(@CurrentScope() scope: Scope, @Param('id', subscriptionId) id: string) {
    return this.webhooks.remove(scope, id);
  }
}
