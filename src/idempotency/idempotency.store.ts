import { Injectable } from '@nestjs/common';
import { RedisService } from '../redis/redis.service';
import { ResponseBox } from './response-box';

export const KEEP_MS = 24 * 60 * 60 * 1000;
/** A claim outlives any request; a crashed request frees its key after this instead of blocking it for a day. */
const CLAIM_MS = 60 * 1000;

export type StoredEntry = { state: 'pending'; fp: string } | { state: 'done'; fp: string; status: number; body: unknown };

/** What Redis holds: a done entry's body is sealed (ResponseBox); entries written before sealing hold `body`. */
type RedisEntry = { state: 'pending'; fp: string } | { state: 'done'; fp: string; status: number; sealed?: string; body?: unknown };

export type Claim = { kind: 'claimed' } | { kind: 'existing'; entry: StoredEntry };

/**
 * The fast path of idempotency, in Redis: one key per (scope, Idempotency-Key), claimed atomically with SET NX while
 * the request runs, then holding the sealed outcome for replays. PostgreSQL keeps the record (IdempotencyRecords).
 */
@Injectable()
export class IdempotencyStore {
  constructor(
    private readonly redis: RedisService,
    private readonly box: ResponseBox,
  ) {}

  async claim(scopeKey: string, fp: string): Promise<Claim> {
    const key = this.redis.key('idem', scopeKey);
    for (let attempt = 0; attempt < 3; attempt++) {
      const pending: StoredEntry = { state: 'pending', fp };
      if ((await this.redis.client.set(key, JSON.stringify(pending), 'PX', CLAIM_MS, 'NX')) === 'OK') return { kind: 'claimed' };
      const raw = await this.redis.client.get(key);
      if (raw) return { kind: 'existing', entry: this.decode(JSON.parse(raw) as RedisEntry) };
      // Expired or released between the two commands: try to claim again.
    }
    return { kind: 'existing', entry: { state: 'pending', fp } };
  }

  /** Replaces the claim with the outcome; `sealed` is the response envelope sealed by ResponseBox. */
  async completeSealed(scopeKey: string, fp: string, status: number, sealed: string): Promise<void> {
    const entry: RedisEntry = { state: 'done', fp, status, sealed };
    await this.redis.client.set(this.redis.key('idem', scopeKey), JSON.stringify(entry), 'PX', KEEP_MS);
  }

  async release(scopeKey: string): Promise<void> {
    await this.redis.client.del(this.redis.key('idem', scopeKey));
  }

  private decode(entry: RedisEntry): StoredEntry {
    if (entry.state !== 'done') return entry;
    if (entry.sealed === undefined) return { state: 'done', fp: entry.fp, status: entry.status, body: entry.body };
    const body = this.box.tryOpenBody(entry.sealed);
    // Sealed under another WEBHOOK_SECRET_KEY: the outcome exists but cannot be shown, so the key stays taken.
    return body.ok ? { state: 'done', fp: entry.fp, status: entry.status, body: body.value } : { state: 'pending', fp: entry.fp };
  }
}
