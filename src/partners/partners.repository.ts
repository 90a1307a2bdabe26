import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { affected, isUniqueViolation, Queryable, returning, sql, sqlOne } from '../common/database';
import { inPartner } from '../common/scope';
import type { PlanCode } from '../plans/plan';
import type { PartnerStatus } from './partner.entity';
import type { AccessRequestStatus } from './production-access-request.entity';

/** A partner's request for production (live) access and its review. */
export interface ProductionAccessRequest {
  id: string;
  partnerId: number;
  useCase: string;
  status: AccessRequestStatus;
  reason: string | null;
  liveKeyId: string | null;
  createdAt: Date;
  reviewedAt: Date | null;
}

/** A partner account. */
export interface Partner {
  id: number;
  name: string;
  email: string;
  website: string | null;
  planCode: PlanCode;
  status: PartnerStatus;
  allowedOrigins: string[];
  isOperator: boolean;
  emailVerifiedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A partners row as the statements below select it. */
interface PartnerRow {
  id: number;
  name: string;
  email: string;
  website: string | null;
  plan_code: PlanCode;
  status: PartnerStatus;
  allowed_origins: string[];
  is_operator: boolean;
  email_verified_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A production_access_requests row as the statements below select it. */
interface AccessRequestRow {
  id: string;
  partner_id: number;
  use_case: string;
  status: AccessRequestStatus;
  reason: string | null;
  live_key_id: string | null;
  created_at: Date;
  reviewed_at: Date | null;
}

const PARTNER_COLUMNS = 'id, name, email, website, plan_code, status, allowed_origins, is_operator, email_verified_at, created_at, updated_at';
const REQUEST_COLUMNS = 'id, partner_id, use_case, status, reason, live_key_id, created_at, reviewed_at';

function toPartner(r: PartnerRow): Partner {
  return {
    id: r.id,
    name: r.name,
    email: r.email,
    website: r.website,
    planCode: r.plan_code,
    status: r.status,
    allowedOrigins: r.allowed_origins,
    isOperator: r.is_operator,
    emailVerifiedAt: r.email_verified_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function toAccessRequest(r: AccessRequestRow): ProductionAccessRequest {
  return {
    id: r.id,
    partnerId: r.partner_id,
    useCase: r.use_case,
    status: r.status,
    reason: r.reason,
    liveKeyId: r.live_key_id,
    createdAt: r.created_at,
    reviewedAt: r.reviewed_at,
  };
}

export interface NewPartner {
  name: string;
  email: string;
  website: string | null;
  planCode: PlanCode;
  /** SHA-256 (hex) of the e-mail verification link's token; null when an operator created the partner (verified). */
  verificationHash: string | null;
}

/** Every query of the partners feature: partners, their allowed origins and their production access requests. */
@Injectable()
export class PartnersRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Runs `work` in one transaction (a partner and its first key; a review and the key it issues). */
  transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** Null when another partner already has the address (any case). */
  async insert(db: Queryable, partner: NewPartner): Promise<Partner | null> {
    try {
      const [row] = await sql<PartnerRow>(
        db,
        `INSERT INTO partners (name, email, website, plan_code, status, allowed_origins, email_verified_at, email_verification_hash, email_verification_expires_at)
         VALUES ($1, $2, $3, $4, 'active', '{}', CASE WHEN $5::char(64) IS NULL THEN now() END, $5, CASE WHEN $5 IS NOT NULL THEN now() + interval '7 days' END)
         RETURNING ${PARTNER_COLUMNS}`,
        [partner.name, partner.email, partner.website, partner.planCode, partner.verificationHash],
      );
      return toPartner(row);
    } catch (e) {
      if (isUniqueViolation(e, 'partners_email_uq')) return null;
      throw e;
    }
  }

  /** Marks the address of the partner whose unexpired link this is as verified (once); null for any other token. */
  async verifyEmail(hash: string): Promise<Partner | null> {
    const [row] = await returning<PartnerRow>(
      this.dataSource,
      `UPDATE partners SET email_verified_at = now(), email_verification_hash = NULL, email_verification_expires_at = NULL
        WHERE email_verification_hash = $1 AND email_verification_expires_at > now() RETURNING ${PARTNER_COLUMNS}`,
      [hash],
    );
    return row ? toPartner(row) : null;
  }

  async find(id: number, db: Queryable = this.dataSource): Promise<Partner | null> {
    const row = await sqlOne<PartnerRow>(db, `SELECT ${PARTNER_COLUMNS} FROM partners WHERE id = $1`, [id]);
    return row && toPartner(row);
  }

  async update(id: number, changes: { planCode: PlanCode; status: PartnerStatus; allowedOrigins: string[] }): Promise<void> {
    await affected(this.dataSource, `UPDATE partners SET plan_code = $2, status = $3, allowed_origins = $4, updated_at = now() WHERE id = $1`, [
      id,
      changes.planCode,
      changes.status,
      changes.allowedOrigins,
    ]);
  }

  /** The operators' own account (one row, a partial unique index on is_operator), created the first time it is asked for. */
  async operatorId(operator: { name: string; email: string }): Promise<number> {
    await sql(
      this.dataSource,
      `INSERT INTO partners (name, email, plan_code, status, is_operator) VALUES ($1, $2, 'enterprise', 'active', true)
       ON CONFLICT (is_operator) WHERE is_operator DO NOTHING`,
      [operator.name, operator.email],
    );
    const row = await sqlOne<{ id: number }>(this.dataSource, 'SELECT id FROM partners WHERE is_operator');
    return row!.id;
  }

  /** Every allowed origin of every active partner (CORS preflights carry no key). */
  async activeOrigins(): Promise<string[]> {
    const rows = await sql<{ origin: string }>(this.dataSource, `SELECT DISTINCT unnest(allowed_origins) AS origin FROM partners WHERE status = 'active'`);
    return rows.map((r) => r.origin);
  }

  /**
   * Records a pending production access request; null when the partner already has one pending (a partial unique
   * index keeps it to one per partner).
   */
  async insertAccessRequest(request: { id: string; partnerId: number; useCase: string }): Promise<ProductionAccessRequest | null> {
    try {
      const [row] = await sql<AccessRequestRow>(
        this.dataSource,
        `INSERT INTO production_access_requests (id, partner_id, use_case, status) VALUES ($1, $2, $3, 'pending') RETURNING ${REQUEST_COLUMNS}`,
        [request.id, request.partnerId, request.useCase],
      );
      return toAccessRequest(row);
    } catch (e) {
      if (isUniqueViolation(e, 'par_one_pending_uq')) return null;
      throw e;
    }
  }

  async pendingAccessRequestId(partnerId: number): Promise<string | null> {
    const row = await sqlOne<{ id: string }>(this.dataSource, `SELECT id FROM production_access_requests WHERE ${inPartner()} AND status = 'pending'`, [
      partnerId,
    ]);
    return row?.id ?? null;
  }

  /** A page of requests, oldest first, each with its partner's name, and the total. */
  async pageAccessRequests(
    status: AccessRequestStatus | undefined,
    offset: number,
    limit: number,
  ): Promise<[Array<{ request: ProductionAccessRequest; partnerName: string }>, number]> {
    const where = status ? 'WHERE r.status = $1' : '';
    const params = status ? [status] : [];
    const [rows, counted] = await Promise.all([
      sql<AccessRequestRow & { partner_name: string }>(
        this.dataSource,
        `SELECT r.id, r.partner_id, r.use_case, r.status, r.reason, r.live_key_id, r.created_at, r.reviewed_at, p.name AS partner_name
           FROM production_access_requests r JOIN partners p ON p.id = r.partner_id ${where}
          ORDER BY r.created_at ASC, r.id ASC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
        [...params, limit, offset],
      ),
      // count(*) is a bigint, which the driver answers as a string
      sqlOne<{ total: string }>(this.dataSource, `SELECT count(*) AS total FROM production_access_requests r ${where}`, params),
    ]);
    return [rows.map((r) => ({ request: toAccessRequest(r), partnerName: r.partner_name })), Number(counted!.total)];
  }

  /** The request with its partner's name, locked FOR UPDATE in the caller's transaction (two admins never both review it). */
  async lockAccessRequest(db: Queryable, id: string): Promise<{ request: ProductionAccessRequest; partnerName: string } | null> {
    const row = await sqlOne<AccessRequestRow & { partner_name: string }>(
      db,
      `SELECT r.id, r.partner_id, r.use_case, r.status, r.reason, r.live_key_id, r.created_at, r.reviewed_at, p.name AS partner_name
         FROM production_access_requests r JOIN partners p ON p.id = r.partner_id
        WHERE r.id = $1 FOR UPDATE OF r`,
      [id],
    );
    return row && { request: toAccessRequest(row), partnerName: row.partner_name };
  }

  /** Records the review of a request claimed with lockAccessRequest, in the same transaction. */
  async reviewAccessRequest(db: Queryable, id: string, review: { status: AccessRequestStatus; reason: string | null; liveKeyId: string | null }) {
    const [row] = await returning<AccessRequestRow>(
      db,
      `UPDATE production_access_requests SET status = $2, reason = $3, live_key_id = $4, reviewed_at = now() WHERE id = $1 RETURNING ${REQUEST_COLUMNS}`,
      [id, review.status, review.reason, review.liveKeyId],
    );
    return toAccessRequest(row);
  }
}
