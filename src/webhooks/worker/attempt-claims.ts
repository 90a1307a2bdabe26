import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Batcher } from '../../common/batcher';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { luaScript, RedisService } from '../../redis/redis.service';

/** Takes every free key of KEYS for ARGV[1] with a lease of ARGV[2] ms; answers 1 (taken) or 0 (held) per key. */
const CLAIM = `local taken = {}
for i, key in ipairs(KEYS) do taken[i] = redis.call('SET', key, ARGV[1], 'PX', ARGV[2], 'NX') and 1 or 0 end
return taken`;
/** Deletes each key of KEYS only if it is still ARGV[1]'s (one that outlived its lease may have been taken over). */
const RELEASE = `for _, key in ipairs(KEYS) do if redis.call('GET', key) == ARGV[1] then redis.call('DEL', key) end end
return 0`;

/**
 * Who is attempting a delivery right now, across the worker processes: a key per delivery in Redis, set when an attempt
 * starts (if free) and deleted when it ends. A delivery's first attempt runs in a job shared with other deliveries, and a
 * job of its own may run beside it (the sweep or the relay added it while that shared job waited); the claim makes
 * the second one stand back, as one job id per delivery did before. A claim left by a worker that died expires after
 * its lease (the longest an attempt can take, with room), and the sweep then enqueues the delivery again.
 *
 * A shared job's attempts start together, so their claims (and later their releases) go to Redis as one script call
 * per batch rather than one command each: the same keys and atomicity per key, a fraction of the client's work.
 */
@Injectable()
export class AttemptClaims {
  private readonly token = randomUUID();
  private readonly leaseMs: number;
  private readonly claims = new Batcher<string, boolean>((keys) => this.run<number[]>(CLAIM, keys, this.leaseMs).then((taken) => taken.map((t) => t === 1)));
  private readonly releases = new Batcher<string, void>((keys) => this.run<number>(RELEASE, keys).then(() => keys.map(() => undefined)));

  constructor(
    private readonly redis: RedisService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.leaseMs = 2 * config.webhook.timeoutMs + 30_000;
  }

  /** True when this attempt may go ahead; false when another holds the delivery. Rejects when Redis does not answer. */
  claim(deliveryId: string): Promise<boolean> {
    return this.claims.call(this.key(deliveryId));
  }

  /** Never rejects: a claim that could not be deleted expires with its lease. */
  async free(deliveryId: string): Promise<void> {
    await this.releases.call(this.key(deliveryId)).catch(() => undefined);
  }

  private key(deliveryId: string): string {
    return this.redis.key('webhook-attempt', deliveryId);
  }

  /** One script call over a batch's keys (as many as the batch has), with this process's token. */
  private run<T>(lua: string, keys: string[], ...args: Array<string | number>): Promise<T> {
    return luaScript<T>(this.redis.client, lua, keys.length)(...keys, this.token, ...args);
  }
}
