import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { affected, Queryable, returning, sql, sqlOne } from '../common/database';
import { inPartner, inScope, type Mode, type Scope, scopeParams } from '../common/scope';
import type { PlanTerms } from '../plans/plan';
import type { KeyRole } from './api-key.entity';

/** An issued key (stored only as its SHA-256 and its prefix). */
export interface ApiKey {
  id: string;
  partnerId: number;
  mode: Mode;
  role: KeyRole;
  name: string | null;
  keyPrefix: string;
  keyHash: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/**
 * The partner and plan columns the key guard and the dashboard read, from the `partner_accounts` view the partners
 * feature declares (a partner joined to its plan): one list, so a new term reaches both.
 */
const ACCOUNT_COLUMNS =
  'a.partner_id, a.name, a.status, a.allowed_origins, a.plan_code, a.plan_name, a.monthly_quota, a.rate_limit_per_second, a.webhook_event_types, a.webhook_subscriptions, a.bulk_outstanding_rows, a.webinar_rooms, a.features';

/** partners.status, as the key lookup reads it (partners depends on this module, so the type cannot come from there). */
export type PartnerStatus = 'active' | 'suspended';

/** A `partner_accounts` row: a partner with its plan's terms. */
export interface AccountRow {
  partner_id: number;
  name: string;
  status: PartnerStatus;
  allowed_origins: string[];
  plan_code: PlanTerms['code'];
  plan_name: string;
  monthly_quota: number | null;
  rate_limit_per_second: number;
  webhook_event_types: number | null;
  webhook_subscriptions: number | null;
  bulk_outstanding_rows: number | null;
  webinar_rooms: number | null;
  features: PlanTerms['features'];
}

/** One row of the key lookup: a key with its partner and plan. */
export interface KeyLookupRow extends AccountRow {
  id: string;
  mode: Mode;
  role: KeyRole;
  revoked_at: Date | null;
}

/** A lookup row's plan columns as the plan terms the guard and the features enforce. */
export function planTermsOf(r: AccountRow): PlanTerms {
  return {
    code: r.plan_code,
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

/** An api_keys row as the statements below select it. */
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
  return {
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
  };
}

export type NewKey = Omit<ApiKey, 'createdAt' | 'lastUsedAt' | 'revokedAt'>;

/** Every query of the api-keys feature. */
@Injectable()
export class ApiKeysRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Stores a new key, in the caller's transaction when given one (registration, approval). */
  async insert(db: Queryable | null, key: NewKey): Promise<ApiKey> {
    const [row] = await sql<ApiKeyRow>(
      db ?? this.dataSource,
      `INSERT INTO api_keys (partner_id, mode, id, role, name, key_prefix, key_hash) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
      scopeParams(key, key.id, key.role, key.name, key.keyPrefix, key.keyHash),
    );
    return toApiKey(row);
  }

  /** The key whose SHA-256 this is, with its partner and plan (the guard's lookup); null when none. */
  lookup(hash: string): Promise<KeyLookupRow | null> {
    return sqlOne<KeyLookupRow>(
      this.dataSource,
      `SELECT k.id, k.mode, k.role, k.revoked_at, ${ACCOUNT_COLUMNS}
         FROM api_keys k JOIN partner_accounts a ON a.partner_id = k.partner_id
        WHERE k.key_hash = $1`,
      [hash],
    );
  }

  async idByHash(hash: string): Promise<string | null> {
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
    const rows = await sql<ApiKeyRow>(this.dataSource, `SELECT ${COLUMNS} FROM api_keys WHERE ${inPartner()} ORDER BY created_at ASC`, [partnerId]);
    return rows.map(toApiKey);
  }

  /** The partner keys of one partner and mode, newest first (what the partner's dashboard lists). */
  async listForScope(scope: Scope): Promise<ApiKey[]> {
    const rows = await sql<ApiKeyRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM api_keys WHERE ${inScope()} AND role = 'partner' ORDER BY created_at DESC, id DESC`,
      scopeParams(scope),
    );
    return rows.map(toApiKey);
  }

  /** Revokes a partner key of this partner and mode; null when it is none of theirs. */
  async revokeScoped(scope: Scope, keyId: string): Promise<ApiKey | null> {
    const [row] = await returning<ApiKeyRow>(
      this.dataSource,
      `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
        WHERE ${inScope()} AND id = $3 AND role = 'partner' RETURNING ${COLUMNS}`,
      scopeParams(scope, keyId),
    );
    return row ? toApiKey(row) : null;
  }

  /** A partner with its plan, as the key lookup resolves it, without a key (a dashboard session); null when none. */
  account(partnerId: number): Promise<AccountRow | null> {
    return sqlOne<AccountRow>(this.dataSource, `SELECT ${ACCOUNT_COLUMNS} FROM partner_accounts a WHERE ${inPartner('a')}`, [partnerId]);
  }

  /** Records that a key was used now; best effort (the guard never waits for it). */
  async touch(keyId: string): Promise<void> {
    await affected(this.dataSource, 'UPDATE api_keys SET last_used_at = now() WHERE id = $1', [keyId]);
  }
}
