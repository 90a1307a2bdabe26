import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { Worker, WorkerOptions } from 'bullmq';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { sharedQueueOptions, workerConnection } from './queues';

/**
 * BullMQ's Worker on the worker form of the shared connection. @nestjs/bullmq builds a processor's worker with its
 * queue's connection, which fails fast for producers; a worker needs it to wait out an outage instead.
 */
class ServiceWorker extends Worker {
  constructor(name: string, processor: ConstructorParameters<typeof Worker>[1], opts: WorkerOptions) {
    super(name, processor, { ...opts, connection: workerConnection(opts.connection) });
  }
}
BullModule.workerClass = ServiceWorker;

/**
 * The one BullMQ connection setup (API and worker): REDIS_URL, the REDIS_PREFIX-derived prefix and the options every
 * queue shares. Features register their queues (BullModule.registerQueue) and inject them (@InjectQueue); processors
 * are registered where workers run (QueueWorkersModule), not on import.
 */
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({ ...sharedQueueOptions(config), forceDisconnectOnShutdown: true }),
      extraOptions: { manualRegistration: true },
    }),
  ],
})
export class QueueModule {}
