import { Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module';
import { RequestLogModule } from '../request-log/request-log.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { DashboardAuthService } from './dashboard-auth.service';
import { DashboardLinkController } from './dashboard-link.controller';
import { DashboardPages } from './dashboard-pages';
import { DashboardPagesController } from './dashboard-pages.controller';
import { DashboardWebhooksController } from './dashboard-webhooks.controller';
import { DashboardRepository } from './dashboard.repository';

/**
 * The partner dashboard (/dashboard): server-rendered pages over the features' own services (keys, webhooks and
 * their delivery log, the request log, bulk jobs), signed in through a single-use link, with a session cookie.
 */
@Module({
  imports: [WebhooksModule, JobsModule, RequestLogModule],
  controllers: [DashboardLinkController, DashboardPagesController, DashboardWebhooksController],
  providers: [DashboardRepository, DashboardAuthService, DashboardPages],
})
export class DashboardModule {}
