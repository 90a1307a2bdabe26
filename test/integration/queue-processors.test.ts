import { getQueueToken } from '@nestjs/bullmq';
import { Test, TestingModule } from '@nestjs/testing';
import { Queue } from 'bullmq';
import { AppModule } from '../../src/app.module';
import { JobsProcessor } from '../../src/jobs/worker/jobs.processor';
import { JOBS_QUEUE, queuePrefix, SEARCH_EMBEDDINGS_QUEUE, WEBHOOK_QUEUE } from '../../src/redis/queues';
import { SearchEmbeddingsProcessor } from '../../src/search/search-embeddings.processor';
import { loadConfig } from '../../src/config/config';
import { WebhookDeliveryProcessor } from '../../src/webhooks/worker/webhook-delivery.processor';

/** The worker process's module (src/worker.ts), optionally with one provider replaced. */
async function workerModule(replace?: (builder: ReturnType<typeof Test.createTestingModule>) => void): Promise<TestingModule> {
  const builder = Test.createTestingModule({ imports: [AppModule.register({ api: false, worker: true })] });
  replace?.(builder);
  return builder.compile();
}

describe('queue processors wired by @nestjs/bullmq', () => {
  it('runs a worker for every registered queue, on the prefix of this run', async () => {
    const app = await workerModule();
    try {
      await app.init();
      const prefix = queuePrefix(loadConfig());
      for (const [name, processor] of [
        [JOBS_QUEUE, JobsProcessor],
        [WEBHOOK_QUEUE, WebhookDeliveryProcessor],
      ] as const) {
        const { worker } = app.get(processor);
        expect(worker.name).toBe(name);
        expect(worker.opts.prefix).toBe(prefix);
        expect(worker.isRunning()).toBe(true);
        expect(app.get<Queue>(getQueueToken(name)).opts.prefix).toBe(prefix);
      }
      // The hand-built workers' settings, now declared on the processors.
      expect(app.get(JobsProcessor).worker.opts).toMatchObject({ concurrency: 2, lockDuration: 15_000, stalledInterval: 5_000 });
      expect(app.get(WebhookDeliveryProcessor).worker.opts).toMatchObject({ concurrency: 64 });
      expect(app.get(WebhookDeliveryProcessor).worker.opts.settings?.backoffStrategy).toEqual(expect.any(Function));
    } finally {
      await app.close();
    }
  });

  it('refuses to start a worker process in which a registered queue has no processor', async () => {
    const app = await workerModule((builder) => builder.overrideProvider(JobsProcessor).useValue({}));
    try {
      await expect(app.init()).rejects.toThrow(/No processor for the "jobs" queue in a process that runs workers/);
    } finally {
      await app.close();
    }
  });

  it('has the hosted-embeddings queue and its processor only when SEARCH_EMBEDDINGS_URL is set', async () => {
    const off = await workerModule();
    expect(() => off.get(SearchEmbeddingsProcessor)).toThrow();
    expect(() => off.get(getQueueToken(SEARCH_EMBEDDINGS_QUEUE))).toThrow();
    // As after a start-up that failed before the workers were built: a processor without a worker closes cleanly.
    await expect(off.get(JobsProcessor).onModuleDestroy()).resolves.toBeUndefined();
    await off.close();
    // Nothing listens on the discard port: the embedding job fails and waits for its retry, which is not this test's.
    const saved = process.env.SEARCH_EMBEDDINGS_URL;
    process.env.SEARCH_EMBEDDINGS_URL = 'http://127.0.0.1:9/v1';
    let on: TestingModule | undefined;
    try {
      on = await workerModule();
      await on.init();
      const { worker } = on.get(SearchEmbeddingsProcessor);
      expect(worker.name).toBe(SEARCH_EMBEDDINGS_QUEUE);
      expect(worker.opts).toMatchObject({ concurrency: 1, prefix: queuePrefix(loadConfig()) });
      expect(worker.isRunning()).toBe(true);
    } finally {
      if (saved === undefined) delete process.env.SEARCH_EMBEDDINGS_URL;
      else process.env.SEARCH_EMBEDDINGS_URL = saved;
      await on?.close();
    }
  });

  it('builds no worker in the API alone, which still has the queues to enqueue to', async () => {
    const builder = Test.createTestingModule({ imports: [AppModule.register({ api: true, worker: false })] });
    const app = await builder.compile();
    try {
      await app.init();
      expect(() => app.get(JobsProcessor)).toThrow();
      expect(app.get<Queue>(getQueueToken(JOBS_QUEUE)).name).toBe(JOBS_QUEUE);
    } finally {
      await app.close();
    }
  });
});
