import { WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { Worker } from 'bullmq';
import { errorMessage } from '../common/error-message';

/**
 * A queue's processor (`@Processor(QUEUE, { autorun: false, … })`). Its worker is built stopped (QueueWorkersModule)
 * and starts taking jobs once every module has booted, so no job runs against a half-initialised application. On
 * shutdown it stops taking jobs and waits for the running ones before the database and Redis clients close (they close
 * at application shutdown, after every module is destroyed).
 */
export abstract class QueueProcessor extends WorkerHost implements OnApplicationBootstrap, OnModuleDestroy {
  protected abstract readonly logger: Logger;

  // A subclass with more to do at start-up (enqueue its first job) overrides this, async if it must, and calls startWorker().
  onApplicationBootstrap(): void | Promise<void> {
    this.startWorker();
  }

  protected startWorker(): void {
    this.worker.run().catch((err: unknown) => this.logger.error({ err: errorMessage(err) }, 'Queue worker stopped'));
  }

  async onModuleDestroy(): Promise<void> {
    // A start-up that failed before the workers were built (QueueWorkers) still closes the application.
    let worker: Worker | undefined;
    try {
      worker = this.worker;
    } catch {
      return;
    }
    await worker.close();
  }
}
