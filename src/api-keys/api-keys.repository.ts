import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { affected, Queryable, returning, sql, sqlOne } from '../common/database';
import type { Mode } from '../common/scope';
import type { PlanTerms } from '../plans/plan';
import { ApiKey, KeyRole } from './api-key.entity';

// The plan terms the key guard and the dashboard read with a partner: one list, so a new term reaches both.
const PLAN_COLUMNS =
  'pl.code, pl.name AS plan_name, pl.monthly_quota, pl.rate_limit_per_second, pl.webhook_event_types, pl.webhook_subscriptions, pl.bulk_outstanding_rows, pl.webinar_rooms, pl.features';

/** partners.status, as the key lookup reads it (partners depends on this module, so the type cannot come from there). */
export type PartnerStatus = 'active' | 'suspended';

/**
 * One row of the key lookup: a key with its partner and plan. id, mode, role, code: varchar; partner_id: int;
 * revoked_at: timestamptz; allowed_origins, features: text[]; monthly_quota, rate_limit_per_second,
 * webhook_event_types, webinar_rooms: int.
 */
export interface KeyLookupRow {
  id: string;
  partner_id: number;
  mode: Mode;
  role: KeyRole;
  revoked_at: Date | null;
  name: string;
  status: PartnerStatus;
  allowed_origins: string[];
  code: PlanTerms['code'];
  plan_name: string;
  monthly_quota: number | null;
  rate_limit_per_second: number;
  webhook_event_types: number | null;
  webhook_subscriptions: number | null;
  bulk_outstanding_rows: number | null;
  webinar_rooms: number | null;
  features: PlanTerms['features'];
}

/** A lookup row's plan columns as the plan terms the guard and the features enforce. */
export function planTermsOf(r: Omit<KeyLookupRow, 'id' | 'mode' | 'role' | 'revoked_at'>): PlanTerms {
  return {
    code: r.code,
    name: r.plan_name,
    monthlyQuota: r.monthly_quota,
    rateLimitPerSecond: r.rate_limit_per_second,
    webhookEventTypes: r.webhook_event_types,
    webhookSubscriptions: r.webhook_subscriptions,
    bulkOutstandingRows: r.bulk_outstanding_rows,
    webinarRooms: r.webinar_rooms,
    features: r.features,
  };
}

/** api_keys columns: id, role, name, key_prefix, key_hash: varchar; partner_id: int; created_at, last_used_at, revoked_at: timestamptz. */
interface ApiKeyRow {
  id: string;
  partner_id: number;
  mode: Mode;
  role: KeyRole;
  name: string | null;
  key_prefix: string;
  key_hash: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const COLUMNS = 'id, partner_id, mode, role, name, key_prefix, key_hash, created_at, last_used_at, revoked_at';

function toApiKey(r: ApiKeyRow): ApiKey {
  return Object.assign(new ApiKey(), {
    id: r.id,
    partnerId: r.partner_id,
    mode: r.mode,
    role: r.role,
    name: r.name,
    keyPrefix: r.key_prefix,
    keyHash: r.key_hash,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    revokedAt: r.revoked_at,
  });
}

export interface NewKey {
  id: string;
  partnerId: number;
  mode: Mode;
  role: KeyRole;
  name: string | null;
  keyPrefix: string;
  keyHash: string;
}

/** Every query of the api-keys feature. */
@Injectable()
export class ApiKeysRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Stores a new key, in the caller's transaction when given one (registration, approval). */
  async insert(db: Queryable | null, key: NewKey): Promise<ApiKey> {
    const [row] = await sql<ApiKeyRow>(
      db ?? this.dataSource,
      `INSERT INTO api_keys (id, partner_id, mode, role, name, key_prefix, key_hash) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
      [key.id, key.partnerId, key.mode, key.role, key.name, key.keyPrefix, key.keyHash],
    );
    return toApiKey(row);
  }

  /** The key whose SHA-256 this is, with its partner and plan (the guard's lookup); null when none. */
  lookup(hash: string): Promise<KeyLookupRow | null> {
    return sqlOne<KeyLookupRow>(
      this.dataSource,
      `SELECT k.id, k.partner_id, k.mode, k.role, k.revoked_at, p.name, p.status, p.allowed_origins,
              ${PLAN_COLUMNS}
         FROM api_keys k JOIN partners p ON p.id = k.partner_id JOIN plans pl ON pl.code = p.plan_code
        WHERE k.key_hash = $1`,
      [hash],
    );
  }

  async idByHash(hash: string): Promise<string | null> {
    // id: varchar
    const row = await sqlOne<{ id: string }>(this.dataSource, 'SELECT id FROM api_keys WHERE key_hash = $1', [hash]);
    return row?.id ?? null;
  }

  /** Revokes the key (keeping the first revocation time) and answers it; null when there is no such key. */
  async revoke(keyId: string, modes: Mode[]): Promise<ApiKey | null> {
    const [row] = await returning<ApiKeyRow>(
      this.dataSource,
      `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 AND mode = ANY($2::varchar[]) RETURNING ${COLUMNS}`,
      [keyId, modes],
    );
    return row ? toApiKey(row) : null;
  }

  /** A partner's keys, oldest first. */
  async listForPartner(partnerId: number): Promise<ApiKey[]> {
    const rows = await sql<ApiKeyRow>(this.dataSource, `SELECT ${COLUMNS} FROM api_keys WHERE partner_id = $1 ORDER BY created_at ASC`, [partnerId]);
    return rows.map(toApiKey);
  }

  /** The partner keys of one partner and mode, newest first (what the partner's dashboard lists). */
  async listForScope(partnerId: number, mode: Mode): Promise<ApiKey[]> {
    const rows = await sql<ApiKeyRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM api_keys WHERE partner_id = $1 AND mode = $2 AND role = 'partner' ORDER BY created_at DESC, id DESC`,
      [partnerId, mode],
    );
    return rows.map(toApiKey);
  }

  /** Revokes a partner key of this partner and mode; null when it is none of theirs. */
  async revokeScoped(partnerId: number, mode: Mode, keyId: string): Promise<ApiKey | null> {
    const [row] = await returning<ApiKeyRow>(
      this.dataSource,
      `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
        WHERE id = $1 AND partner_id = $2 AND mode = $3 AND role = 'partner' RETURNING ${COLUMNS}`,
      [keyId, partnerId, mode],
    );
    return row ? toApiKey(row) : null;
  }

  /** A partner with its plan, as the key lookup resolves it, without a key (a dashboard session); null when none. */
  account(partnerId: number): Promise<Omit<KeyLookupRow, 'id' | 'mode' | 'role' | 'revoked_at'> | null> {
    return sqlOne(
      this.dataSource,
      `SELECT p.id AS partner_id, p.name, p.status, p.allowed_origins,
              ${PLAN_COLUMNS}
         FROM partners p JOIN plans pl ON pl.code = p.plan_code WHERE p.id = $1`,
      [partnerId],
    );
  }

  /** Records that a key was used now; best effort (the guard never waits for it). */
  async touch(keyId: string): Promise<void> {
    await affected(this.dataSource, 'UPDATE api_keys SET last_used_at = now() WHERE id = $1', [keyId]);
  }
}
