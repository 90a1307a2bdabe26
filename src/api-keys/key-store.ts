import { Injectable, OnModuleInit } from '@nestjs/common';
import { LruCache } from '../common/lru-cache';
import { RedisService } from '../redis/redis.service';
import type { Mode } from '../common/scope';
import type { PlanTerms } from '../plans/plan';
import type { KeyRole } from './api-key.entity';
import { ApiKeysRepository, PartnerStatus, planTermsOf } from './api-keys.repository';

export interface KeyRecord {
  keyId: string;
  partnerId: number;
  partnerName: string;
  partnerStatus: PartnerStatus;
  allowedOrigins: string[];
  mode: Mode;
  role: KeyRole;
  revoked: boolean;
  plan: PlanTerms;
}

const TTL_MS = 3000;
/**
 * A key in use is read again this long after it was stored, while its entry still answers: requests keep being
 * served from the cache instead of all waiting for PostgreSQL each time the entry expires. No entry is older than
 * TTL_MS either way.
 */
const REFRESH_AFTER_MS = 2000;
const CAPACITY = 10_000;
/** Keys found unknown stay unknown (keys are random, never chosen by a client): remembered longer, apart from known ones. */
const UNKNOWN_TTL_MS = 60_000;
const UNKNOWN_CAPACITY = 20_000;
const CHANNEL = 'auth.changed';
const LAST_USED_EVERY_MS = 60_000;

/**
 * Verified keys cached in process for three seconds, so a request costs no database round trip.
 * Revocation, suspension and plan changes publish on Redis and clear every instance's cache at once;
 * the short TTL bounds staleness to well under the 5 s a revocation may take even if a message is lost.
 * Both caches evict the least recently used entry when full, and unknown keys have their own, so a flood of
 * forged keys neither costs a lookup each time one repeats nor pushes valid keys out.
 */
@Injectable()
export class KeyStore implements OnModuleInit {
  private readonly known = new LruCache<string, { record: KeyRecord; refreshAt: number }>(CAPACITY, TTL_MS);
  private readonly unknown = new LruCache<string, true>(UNKNOWN_CAPACITY, UNKNOWN_TTL_MS);
  private readonly inflight = new Map<string, Promise<KeyRecord | null>>();
  private readonly lastUsedWritten = new Map<string, number>();
  // Advanced by every clear: a lookup that started before a change committed does not store what it read.
  private generation = 0;

  constructor(
    private readonly repo: ApiKeysRepository,
    private readonly redis: RedisService,
  ) {}

  onModuleInit(): void {
    this.redis.subscribe(CHANNEL, () => this.forget());
  }

  /**
   * The record of a key this process resolved within TTL_MS, without waiting (the guard's path for a key in use);
   * undefined when only find() can tell.
   */
  cached(hash: string, now = Date.now()): KeyRecord | undefined {
    const hit = this.known.get(hash, now);
    if (!hit) return undefined;
    if (now >= hit.refreshAt) {
      hit.refreshAt = Infinity; // one refresh per entry; a failed one leaves the entry to expire
      this.lookup(hash).catch(() => undefined);
    }
    return hit.record;
  }

  async find(hash: string): Promise<KeyRecord | null> {
    const hit = this.cached(hash);
    if (hit) return hit;
    if (this.unknown.get(hash)) return null;
    return this.lookup(hash);
  }

  /** Call after a key, partner or plan change commits. */
  async invalidate(): Promise<void> {
    this.forget();
    await this.redis.publish(CHANNEL, String(Date.now())).catch(() => undefined);
  }

  private forget(): void {
    this.generation++;
    this.known.clear();
  }

  /** One lookup per key at a time, its answer remembered unless the keys changed meanwhile. */
  private lookup(hash: string): Promise<KeyRecord | null> {
    let pending = this.inflight.get(hash);
    if (!pending) {
      const generation = this.generation;
      pending = this.load(hash)
        .then((record) => {
          if (generation === this.generation) this.remember(hash, record);
          return record;
        })
        .finally(() => this.inflight.delete(hash));
      this.inflight.set(hash, pending);
    }
    return pending;
  }

  private remember(hash: string, record: KeyRecord | null): void {
    const now = Date.now();
    if (record) {
      this.known.set(hash, { record, refreshAt: now + REFRESH_AFTER_MS }, now);
    } else {
      this.known.delete(hash);
      this.unknown.set(hash, true, now);
    }
  }

  /** last_used_at is written at most once a minute per key and never on the request's critical path. */
  touch(keyId: string): void {
    const now = Date.now();
    if ((this.lastUsedWritten.get(keyId) ?? 0) + LAST_USED_EVERY_MS > now) return;
    this.lastUsedWritten.set(keyId, now);
    this.repo.touch(keyId).catch(() => this.lastUsedWritten.delete(keyId));
  }

  private async load(hash: string): Promise<KeyRecord | null> {
    const r = await this.repo.lookup(hash);
    if (!r) return null;
    return {
      keyId: r.id,
      partnerId: r.partner_id,
      partnerName: r.name,
      partnerStatus: r.status,
      allowedOrigins: r.allowed_origins,
      mode: r.mode,
      role: r.role,
      revoked: r.revoked_at !== null,
      plan: planTermsOf(r),
    };
  }
}
