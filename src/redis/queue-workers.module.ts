import { BullRegistrar, WorkerHost } from '@nestjs/bullmq';
import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService } from '@nestjs/core';
import { Queue } from 'bullmq';

/**
 * Builds the workers of every @Processor in the application (BullModule is set to manual registration, so a process
 * without this module, the API alone, builds none) and refuses to start when a registered queue has none: its jobs
 * would wait in Redis for ever. The workers are built stopped; each starts when the application has booted
 * (QueueProcessor).
 */
@Injectable()
export class QueueWorkers implements OnModuleInit {
  constructor(
    private readonly registrar: BullRegistrar,
    private readonly discovery: DiscoveryService,
  ) {}

  onModuleInit(): void {
    this.registrar.register();
    const instances = this.discovery.getProviders().map((wrapper) => wrapper.instance as unknown);
    const processed = new Set(instances.filter((i): i is WorkerHost => i instanceof WorkerHost).map((p) => p.worker.name));
    const queues = new Set(instances.filter((i): i is Queue => i instanceof Queue).map((q) => q.name));
    const orphans = [...queues].filter((name) => !processed.has(name));
    if (orphans.length) {
      throw new Error(
        `No processor for the ${orphans.map((q) => `"${q}"`).join(', ')} queue${orphans.length === 1 ? '' : 's'} in a process that runs workers: ` +
          'its jobs would never run. Add the @Processor class to its worker module, and that module to workers() in src/app.module.ts.',
      );
    }
  }
}

/** Loaded first among the worker modules (workers() in app.module.ts): turns the application's @Processor classes into running workers. */
@Module({ imports: [DiscoveryModule], providers: [QueueWorkers] })
export class QueueWorkersModule {}
