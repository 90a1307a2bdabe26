import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { createHash } from 'node:crypto';
import Redis, { RedisOptions } from 'ioredis';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { checkRedisPolicy } from './redis-policy';

/** Options for request-path clients: commands fail at once while disconnected, so callers answer 503, never hang. */
export function requestPathRedisOptions(): RedisOptions {
  return {
    enableOfflineQueue: false,
    // Commands issued in the same tick share one write: fewer syscalls under concurrent requests.
    enableAutoPipelining: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 2000,
    lazyConnect: false,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  };
}

/**
 * A Lua script sent by its SHA1 (EVALSHA): a request sends a few dozen bytes instead of the script's text, and Redis
 * skips hashing it on every call. A Redis that restarted empty (or whose scripts were flushed) answers NOSCRIPT once;
 * EVAL then runs and reloads it.
 */
export function luaScript<T>(
  client: Pick<Redis, 'evalsha' | 'eval'>,
  lua: string,
  numberOfKeys: number,
): (...keysAndArgs: Array<string | number>) => Promise<T> {
  const sha = createHash('sha1').update(lua).digest('hex');
  // A plain promise chain rather than an async function: scripts run on every keyed request, and each promise an
  // async function adds is paid again in the request context's async hooks.
  return (...keysAndArgs) =>
    (client.evalsha(sha, numberOfKeys, ...keysAndArgs) as Promise<T>).catch((e: unknown) => {
      if (!(e instanceof Error) || !e.message.startsWith('NOSCRIPT')) throw e;
      return client.eval(lua, numberOfKeys, ...keysAndArgs) as Promise<T>;
    });
}

/**
 * One shared ioredis client for counters, caches and locks, plus a subscriber for invalidation messages.
 * Every key goes through `key()` so deployments and test runs sharing a Redis never collide.
 */
@Injectable()
export class RedisService implements OnModuleInit, OnApplicationShutdown {
  readonly client: Redis;
  private subscriber?: Redis;
  private readonly handlers = new Map<string, Set<(message: string) => void>>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.client = new Redis(config.redisUrl, requestPathRedisOptions());
    this.client.on('error', () => undefined); // surfaced per command; readiness reports it
  }

  /**
   * With the offline queue off, a command sent before the connection is ready fails: start-up waits for it, so
   * the first requests after boot do not get 503. If Redis is down the app still starts and readiness says so.
   */
  async onModuleInit(): Promise<void> {
    const logger = new Logger(RedisService.name);
    await this.ready().then(
      () => checkRedisPolicy(this.client, logger),
      (e: Error) => logger.warn(e.message),
    );
  }

  key(...parts: Array<string | number>): string {
    return [this.config.redisPrefix, ...parts].join(':');
  }

  /** Waits until the client is ready (used at start-up, where the offline queue is off). */
  async ready(timeoutMs = 5000): Promise<void> {
    if (this.client.status === 'ready') return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Redis at ${this.config.redisUrl} is not reachable`)), timeoutMs);
      this.client.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** A Lua script of this client's, sent by its SHA1 (see luaScript). */
  script<T>(lua: string, numberOfKeys: number): (...keysAndArgs: Array<string | number>) => Promise<T> {
    return luaScript<T>(this.client, lua, numberOfKeys);
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.client.publish(this.key('ch', channel), message);
  }

  subscribe(channel: string, handler: (message: string) => void): void {
    const full = this.key('ch', channel);
    if (!this.subscriber) {
      this.subscriber = new Redis(this.config.redisUrl, { retryStrategy: (t) => Math.min(t * 200, 2000) });
      this.subscriber.on('error', () => undefined);
      this.subscriber.on('message', (ch: string, msg: string) => this.handlers.get(ch)?.forEach((h) => h(msg)));
    }
    if (!this.handlers.has(full)) {
      this.handlers.set(full, new Set());
      void this.subscriber.subscribe(full).catch(() => undefined);
    }
    this.handlers.get(full)!.add(handler);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([this.client.quit(), this.subscriber?.quit()]);
  }
}
