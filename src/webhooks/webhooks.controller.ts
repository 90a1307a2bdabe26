import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Auth, AuthContext, CurrentScope } from '../auth/auth-context';
import { PlanFeature } from '../auth/auth.decorators';
import type { Scope } from '../common/scope';
import { ApiErrors, ApiSuccess, KEYED_ERRORS } from '../common/swagger';
import { CreateWebhookDto, ListWebhooksQuery, UpdateWebhookDto, WebhookCreatedDto, WebhookDeletedDto, WebhookDto, WebhookListDto } from './dto/webhook.dto';
import { WebhooksService } from './webhooks.service';

@ApiTags('Webhooks')
@PlanFeature('webhooks')
@Controller('connect/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @ApiOperation({
    summary: 'Register a webhook endpoint',
    description: 'Deliveries are signed with `secret` (X-SVC-Signature: sha256=<hex HMAC>). The secret is never returned. Starter plans may use at most 2 distinct event types across active subscriptions.',
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
  get(@CurrentScope() scope: Scope, @Param('id') id: string) {
    return this.webhooks.get(scope, id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Change url, events, secret or status', description: 'Set `status: "active"` to re-enable a subscription disabled after a 410.' })
  @ApiParam({ name: 'id', example: 'whk_4f9TzQe1LmN8pR2sV6xY0a' })
  @ApiSuccess(WebhookDto)
  @ApiErrors('validation_failed', 'invalid_json', 'webhook_not_found', 'plan_limit_exceeded', 'unsupported_media_type', ...KEYED_ERRORS)
  update(@Auth() auth: AuthContext, @Param('id') id: string, @Body() dto: UpdateWebhookDto) {
    return this.webhooks.update(auth, id, dto);
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Delete a webhook subscription and its delivery log' })
  @ApiParam({ name: 'id', example: 'whk_4f9TzQe1LmN8pR2sV6xY0a' })
  @ApiSuccess(WebhookDeletedDto)
  @ApiErrors('webhook_not_found', ...KEYED_ERRORS)
  remove(@CurrentScope() scope: Scope, @Param('id') id: string) {
    return this.webhooks.remove(scope, id);
  }
}
