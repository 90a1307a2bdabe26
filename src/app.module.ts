import { DynamicModule, Module } from '@nestjs/common';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { AppConfig, loadConfigOrExit } from './config/config';
import { AdminQueuesModule } from './admin-queues/admin-queues.module';
import { ApiKeysModule } from './api-keys/api-keys.module';
import { AuthModule } from './auth/auth.module';
import { AppConfigModule } from './config/config.module';
import { PartnersModule } from './partners/partners.module';
import { PlansModule } from './plans/plans.module';
import { CoursesModule } from './courses/courses.module';
import { DatabaseModule } from './database/database.module';
import { EventsModule } from './events/events.module';
import { HealthModule } from './health/health.module';
import { LoggingModule } from './logging';
import { MetricsModule } from './metrics/metrics.module';
import { RedisModule } from './redis/redis.module';
import { QueueModule } from './redis/queue.module';
import { QueueWorkersModule } from './redis/queue-workers.module';
import { UsersModule } from './users/users.module';
import { CreditsModule } from './credits/credits.module';
import { EnrollmentModule } from './enrollment/enrollment.module';
import { CertificatesModule } from './certificates/certificates.module';
import { IdempotencyModule } from './idempotency/idempotency.module';
import { IdempotencyWorkerModule } from './idempotency/idempotency-worker.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { WebinarsModule } from './webinars/webinars.module';
import { MediaModule } from './media/media.module';
import { WebhooksWorkerModule } from './webhooks/worker/webhooks-worker.module';
import { SearchModule } from './search/search.module';
import { SearchWorkerModule } from './search/search-worker.module';
import { JobsModule } from './jobs/jobs.module';
import { JobsWorkerModule } from './jobs/worker/jobs-worker.module';
import { CoursesWorkerModule } from './courses/worker/courses-worker.module';
import { DashboardModule } from './dashboard/dashboard.module';
import { RequestLogModule } from './request-log/request-log.module';

export interface AppModuleOptions {
  /** Serve HTTP routes (the API process). */
  api: boolean;
  /** Run queue processors and the outbox relay in this process. */
  worker: boolean;
  /** Where JSON logs go (stdout by default); tests pass a stream to read them. */
  logStream?: NodeJS.WritableStream;
}

/** Shared by the API and the worker: configuration, logging, PostgreSQL, Redis and the queues' connection, the event bus. */
const CORE = [
  AppConfigModule,
  EventEmitterModule.forRoot({ wildcard: false, ignoreErrors: false }),
  DatabaseModule,
  RedisModule,
  QueueModule,
  EventsModule,
  MetricsModule,
];

/** Feature modules: each owns its tables, routes and events. */
const FEATURES = [
  AuthModule,
  ApiKeysModule,
  PlansModule,
  PartnersModule,
  CoursesModule,
  UsersModule,
  CreditsModule,
  EnrollmentModule,
  CertificatesModule,
  IdempotencyModule,
  WebhooksModule,
  WebinarsModule,
  MediaModule,
  SearchModule,
  JobsModule,
  RequestLogModule,
  DashboardModule,
  HealthModule,
];

/**
 * Modules holding BullMQ processors (@Processor classes) and background loops, loaded where `worker` is on.
 * QueueWorkersModule builds the processors' workers and refuses to start if a registered queue has none.
 */
function workers(config: AppConfig): NonNullable<DynamicModule['imports']> {
  return [QueueWorkersModule, WebhooksWorkerModule, SearchWorkerModule.register(config.search), JobsWorkerModule, IdempotencyWorkerModule, CoursesWorkerModule];
}

@Module({})
export class AppModule {
  static register(options: AppModuleOptions): DynamicModule {
    const config = loadConfigOrExit();
    return {
      module: AppModule,
      imports: [
        LoggingModule.forRoot(config, options.logStream),
        ...CORE,
        ...FEATURES,
        ...(options.api ? [AdminQueuesModule] : []),
        ...(options.worker ? workers(config) : []),
      ],
    };
  }
}
