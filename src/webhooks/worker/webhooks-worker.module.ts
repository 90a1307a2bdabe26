import { Module } from '@nestjs/common';
import { WebhooksModule } from '../webhooks.module';
import { AttemptClaims } from './attempt-claims';
import { DeliverWebhookJob } from './deliver-webhook.job';
import { DeliveryStore } from './delivery-store';
import { DeliverySweep } from './delivery-sweep.service';
import { OutboxRelay } from './outbox-relay.service';
import { SecretKeyCheck } from './secret-key-check.service';
import { WebhookDeliveryProcessor } from './webhook-delivery.processor';
import { WebhookSender } from './webhook-sender';

/** The delivery processor, the outbox relay and the delivery sweep: loaded in the API when RUN_WORKER=true, and in the worker process. */
@Module({
  imports: [WebhooksModule],
  providers: [AttemptClaims, DeliverWebhookJob, DeliveryStore, DeliverySweep, WebhookSender, WebhookDeliveryProcessor, OutboxRelay, SecretKeyCheck],
})
export class WebhooksWorkerModule {}
