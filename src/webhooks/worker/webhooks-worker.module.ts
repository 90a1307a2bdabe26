import { Module } from '@nestjs/common';
import { WebhooksModule } from '../webhooks.module';
import { DeliverWebhookJob } from './deliver-webhook.job';
import { OutboxRelay } from './outbox-relay.service';
import { WebhookDeliveryWorker } from './webhook-delivery.worker';
import { WebhookSender } from './webhook-sender';

/** The delivery processor and the outbox relay: loaded in the API when RUN_WORKER=true, and in the worker process. */
@Module({
  imports: [WebhooksModule],
  providers: [DeliverWebhookJob, WebhookSender, WebhookDeliveryWorker, OutboxRelay],
})
export class WebhooksWorkerModule {}
