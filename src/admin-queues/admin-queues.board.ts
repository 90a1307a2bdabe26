import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import type { RequestHandler } from 'express';
import Redis from 'ioredis';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { queueOptions } from '../redis/queue-options';
import { JOBS_QUEUE, queuePrefix, SEARCH_EMBEDDINGS_QUEUE, WEBHOOK_QUEUE } from '../redis/queues';
import { AdminBasicAuth } from './admin-basic-auth';

/** Where the dashboard is served (outside the /api prefix: it is a page, not a partner endpoint). */
export const ADMIN_QUEUES_PATH = '/admin/queues';

/**
 * The Bull Board dashboard over the webhook delivery, search embedding and background job queues, for platform operators.
 * It reads the queues through its own lazily connected Redis client, so an API that never serves the page
 * holds no extra connection, and Redis being down only breaks the page.
 */
@Injectable()
export class AdminQueuesBoard implements OnApplicationShutdown {
  private readonly connection: Redis;
  private readonly queues: Queue[];
  private readonly serverAdapter = new ExpressAdapter();

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly auth: AdminBasicAuth,
  ) {
    this.connection = new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000 });
    this.connection.on('error', () => undefined);
    this.queues = [WEBHOOK_QUEUE, SEARCH_EMBEDDINGS_QUEUE, JOBS_QUEUE].map((name) => {
      const queue = new Queue(name, queueOptions(this.connection, queuePrefix(config)));
      queue.on('error', () => undefined);
      return queue;
    });
    this.serverAdapter.setBasePath(ADMIN_QUEUES_PATH);
    createBullBoard({
      queues: this.queues.map((q) => new BullMQAdapter(q)),
      serverAdapter: this.serverAdapter,
      options: { uiConfig: { boardTitle: 'Partner API queues' } },
    });
  }

  /**
   * Framing headers first (the page acts with the operator's Basic credentials, so no other site may frame it, nor
   * its refusals), then admin authentication, then the dashboard's own router (pages, static assets and its JSON API).
   */
  handlers(): RequestHandler[] {
    const board = this.serverAdapter.getRouter() as RequestHandler & { disable?(setting: string): void };
    // Bull Board mounts an Express app of its own, which would announce itself with X-Powered-By.
    board.disable?.('x-powered-by');
    const noFraming: RequestHandler = (_req, res, next) => {
      res.setHeader('Content-Security-Policy', "frame-ancestors 'none'");
      res.setHeader('X-Frame-Options', 'DENY');
      next();
    };
    return [noFraming, this.auth.middleware(), board];
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.queues.map((q) => q.close().catch(() => undefined)));
    this.connection.disconnect();
  }
}
