import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { sql } from '../common/database';
import { LruCache } from '../common/lru-cache';
import { RedisService } from '../redis/redis.service';
import type { Mode } from '../common/scope';
import type { PartnerStatus } from '../partners/partner.entity';
import { Plan } from '../partners/plan.entity';
import type { KeyRole } from './api-key.entity';

export interface KeyRecord {
  keyId: string;
  partnerId: number;
  partnerName: string;
  partnerStatus: PartnerStatus;
  allowedOrigins: string[];
  mode: Mode;
  role: KeyRole;
  revoked: boolean;
  plan: Plan;
}

/** One row of the lookup in load(): a key with its partner and plan. */
interface KeyRow {
  id: string;
  partner_id: number;
  mode: Mode;
  role: KeyRole;
  revoked_at: Date | null;
  name: string;
  status: PartnerStatus;
  allowed_origins: string[];
  code: Plan['code'];
  plan_name: string;
  monthly_quota: number | null;
  rate_limit_per_second: number;
  webhook_event_types: number | null;
  webinar_rooms: number | null;
  features: Plan['features'];
}

const TTL_MS = 3000;
const CAPACITY = 10_000;
/** Keys found unknown stay unknown (keys are random, never chosen by a client): remembered longer, apart from known ones. */
const UNKNOWN_TTL_MS = 60_000;
const UNKNOWN_CAPACITY = 20_000;
const CHANNEL = 'auth.changed';

/**
 * Verified keys cached in process for three seconds, so a request costs no database round trip.
 * Revocation, suspension and plan changes publish on Redis and clear every instance's cache at once;
 * the short TTL bounds staleness to well under the contract's 5 s even if a message is lost.
 * Both caches evict the least recently used entry when full, and unknown keys have their own, so a flood of
 * forged keys neither costs a lookup each time one repeats nor pushes valid keys out.
 */
@Injectable()
export class KeyStore implements OnModuleInit {
  private readonly known = new LruCache<string, KeyRecord>(CAPACITY, TTL_MS);
  private readonly unknown = new LruCache<string, true>(UNKNOWN_CAPACITY, UNKNOWN_TTL_MS);
  private readonly inflight = new Map<string, Promise<KeyRecord | null>>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly redis: RedisService,
  ) {}

  onModuleInit(): void {
    this.redis.subscribe(CHANNEL, () => this.known.clear());
  }

  async find(hash: string): Promise<KeyRecord | null> {
    const hit = this.known.get(hash);
    if (hit) return hit;
    if (this.unknown.get(hash)) return null;
    let pending = this.inflight.get(hash);
    if (!pending) {
      pending = this.load(hash).finally(() => this.inflight.delete(hash));
      this.inflight.set(hash, pending);
    }
    const record = await pending;
    if (record) this.known.set(hash, record);
    else this.unknown.set(hash, true);
    return record;
  }

  /** Call after a key, partner or plan change commits. */
  async invalidate(): Promise<void> {
    this.known.clear();
    await this.redis.publish(CHANNEL, String(Date.now())).catch(() => undefined);
  }

  private async load(hash: string): Promise<KeyRecord | null> {
    const [r] = await sql<KeyRow>(
      this.dataSource,
      `SELECT k.id, k.partner_id, k.mode, k.role, k.revoked_at, p.name, p.status, p.allowed_origins,
              pl.code, pl.name AS plan_name, pl.monthly_quota, pl.rate_limit_per_second, pl.webhook_event_types, pl.webinar_rooms, pl.features
         FROM api_keys k JOIN partners p ON p.id = k.partner_id JOIN plans pl ON pl.code = p.plan_code
        WHERE k.key_hash = $1`,
      [hash],
    );
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
      plan: {
        code: r.code,
        name: r.plan_name,
        monthlyQuota: r.monthly_quota,
        rateLimitPerSecond: r.rate_limit_per_second,
        webhookEventTypes: r.webhook_event_types,
        webinarRooms: r.webinar_rooms,
        features: r.features,
      },
    };
  }
}
