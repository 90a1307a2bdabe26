import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WEBHOOK_QUEUE } from '../redis/queues';
import { SecretBox } from './secret-box';
import { WebhookAttempt } from './webhook-attempt.entity';
import { WebhookDeliveriesController } from './webhook-deliveries.controller';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookEventsListener } from './webhook-events.listener';
import { WebhookFanOut } from './webhook-fan-out.service';
import { WebhookQueue } from './webhook-queue';
import { WebhookSubscription } from './webhook-subscription.entity';
import { WebhookTestEvents } from './webhook-test-events.service';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/** Subscriptions, the delivery log, and the after-commit fan-out (the producer side of the delivery queue). */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookSubscription, WebhookDelivery, WebhookAttempt]), BullModule.registerQueue({ name: WEBHOOK_QUEUE })],
  controllers: [WebhooksController, WebhookDeliveriesController],
  providers: [WebhooksRepository, WebhooksService, WebhookDeliveriesService, SecretBox, WebhookQueue, WebhookFanOut, WebhookEventsListener, WebhookTestEvents],
  exports: [WebhookFanOut, WebhookQueue, SecretBox, WebhooksService, WebhookDeliveriesService, WebhookTestEvents],
})
export class WebhooksModule {}
