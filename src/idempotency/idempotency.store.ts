import { Injectable } from '@nestjs/common';
import { RedisService } from '../redis/redis.service';

export const KEEP_MS = 24 * 60 * 60 * 1000;
/** A claim outlives any request; a crashed request frees its key after this instead of blocking it for a day. */
const CLAIM_MS = 60 * 1000;

export type StoredEntry = { state: 'pending'; fp: string } | { state: 'done'; fp: string; status: number; body: unknown };

export type Claim = { kind: 'claimed' } | { kind: 'existing'; entry: StoredEntry };

/** Idempotency records in Redis: one key per (scope, Idempotency-Key), claimed atomically with SET NX. */
@Injectable()
export class IdempotencyStore {
  constructor(private readonly redis: RedisService) {}

  async claim(scopeKey: string, fp: string): Promise<Claim> {
    const key = this.redis.key('idem', scopeKey);
    for (let attempt = 0; attempt < 3; attempt++) {
      const pending: StoredEntry = { state: 'pending', fp };
      if ((await this.redis.client.set(key, JSON.stringify(pending), 'PX', CLAIM_MS, 'NX')) === 'OK') return { kind: 'claimed' };
      const raw = await this.redis.client.get(key);
      if (raw) return { kind: 'existing', entry: JSON.parse(raw) as StoredEntry };
      // Expired or released between the two commands: try to claim again.
    }
    return { kind: 'existing', entry: { state: 'pending', fp } };
  }

  async complete(scopeKey: string, fp: string, status: number, body: unknown): Promise<void> {
    const entry: StoredEntry = { state: 'done', fp, status, body };
    await this.redis.client.set(this.redis.key('idem', scopeKey), JSON.stringify(entry), 'PX', KEEP_MS);
  }

  async release(scopeKey: string): Promise<void> {
    await this.redis.client.del(this.redis.key('idem', scopeKey));
  }
}
