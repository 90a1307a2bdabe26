import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentScope } from '../auth/auth-context';
import { PlanFeature } from '../auth/auth.decorators';
import { prefixedIdParam } from '../common/params';
import type { Scope } from '../common/scope';
import { ApiErrors, ApiSuccess, KEYED_ERRORS } from '../common/swagger';
import { DeliveryDetailDto, DeliveryDto, DeliveryListDto, ListDeliveriesQuery } from './dto/delivery.dto';
import { WebhookDeliveriesService } from './webhook-deliveries.service';

/** Routes with no body or query to validate; the others leave the id to WebhooksService.find (a bad body or query is 400 whatever the id). */
const subscriptionId = prefixedIdParam('whk', 'webhook_not_found');

@ApiTags('Webhooks')
@PlanFeature('webhooks')
@Controller('connect/webhooks/:id/deliveries')
export class WebhookDeliveriesController {
  constructor(private readonly deliveries: WebhookDeliveriesService) {}

  @Get()
  @ApiOperation({ summary: "A subscription's deliveries, newest first" })
  @ApiParam({ name: 'id', example: 'whk_4f9TzQe1LmN8pR2sV6xY0a' })
  @ApiSuccess(DeliveryListDto)
  @ApiErrors('validation_failed', 'webhook_not_found', ...KEYED_ERRORS)
  list(@CurrentScope() scope: Scope, @Param('id') id: string, @Query() query: ListDeliveriesQuery) {
    return this.deliveries.list(scope, id, query);
  }

  @Get(':webhook_id')
  @ApiOperation({
    summary: 'One delivery with its payload and every attempt',
    description:
      'The exact body sent (`payload`, the envelope as JSON) and every attempt in order: when it went out, the status your endpoint answered (null when no answer came), how long it took and the error.',
  })
  @ApiParam({ name: 'id', example: 'whk_4f9TzQe1LmN8pR2sV6xY0a' })
  @ApiParam({ name: 'webhook_id', example: 'whd_8KfL2mQ9rS4tU7vW1xY3zA' })
  @ApiSuccess(DeliveryDetailDto)
  @ApiErrors('webhook_not_found', 'delivery_not_found', ...KEYED_ERRORS)
  get(@CurrentScope() scope: Scope, @Param('id', subscriptionId) id: string, @Param('webhook_id') webhookId: string) {
    return this.deliveries.get(scope, id, webhookId);
  }

  @Post(':webhook_id/redeliver')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send a delivery again',
    description:
      'Queues the same stored body with the same webhook_id (202: accepted, sent asynchronously with the usual retries). Works for delivered, failed and skipped deliveries alike. A disabled subscription sends nothing: 409 `webhook_disabled` (re-enable it first).',
  })
  @ApiParam({ name: 'id', example: 'whk_4f9TzQe1LmN8pR2sV6xY0a' })
  @ApiParam({ name: 'webhook_id', example: 'whd_8KfL2mQ9rS4tU7vW1xY3zA' })
  @ApiSuccess(DeliveryDto, { status: 202 })
  @ApiErrors('webhook_not_found', 'delivery_not_found', 'webhook_disabled', ...KEYED_ERRORS)
  redeliver(@CurrentScope() scope: Scope, @Param('id', subscriptionId) id: string, @Param('webhook_id') webhookId: string) {
    return this.deliveries.redeliver(scope, id, webhookId);
  }
}
