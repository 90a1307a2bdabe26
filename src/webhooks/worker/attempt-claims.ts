import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { RedisService } from '../../redis/redis.service';

/** Deletes the claim only if it is still this attempt's (one that outlived its lease may have been taken over). */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/**
 * Who is attempting a delivery right now, across the worker processes: a key per delivery in Redis, set when an attempt
 * starts (if free) and deleted when it ends. A delivery's first attempt runs in a job shared with other deliveries, and a
 * job of its own may run beside it (the sweep or the relay added it while that shared job waited); the claim makes
 * the second one stand back, as one job id per delivery did before. A claim left by a worker that died expires after
 * its lease (the longest an attempt can take, with room), and the sweep then enqueues the delivery again.
 */
@Injectable()
export class AttemptClaims {
  private readonly token = randomUUID();
  private readonly leaseMs: number;
  private readonly release: (...keysAndArgs: Array<string | number>) => Promise<number>;

  constructor(
    private readonly redis: RedisService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.leaseMs = 2 * config.webhook.timeoutMs + 30_000;
    this.release = redis.script<number>(RELEASE, 1);
  }

  /** True when this attempt may go ahead; false when another holds the delivery. Rejects when Redis does not answer. */
  async claim(deliveryId: string): Promise<boolean> {
    return (await this.redis.client.set(this.key(deliveryId), this.token, 'PX', this.leaseMs, 'NX')) === 'OK';
  }

  /** Never rejects: a claim that could not be deleted expires with its lease. */
  async free(deliveryId: string): Promise<void> {
    await this.release(this.key(deliveryId), this.token).catch(() => undefined);
  }

  private key(deliveryId: string): string {
    return this.redis.key('webhook-attempt', deliveryId);
  }
}
