import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Queryable, returning, sql, sqlOne } from '../common/database';
import { inScope, Mode, Scope, scopeParams } from '../common/scope';
import type { Ed25519PrivateJwk } from '../config/config';

/** One certificate per enrolment; holder name and course title are frozen at issue, issuedAt is the calendar date as `YYYY-MM-DD`. */
export interface Certificate {
  id: string;
  partnerId: number;
  mode: Mode;
  userId: number;
  courseId: number;
  enrollmentId: number;
  holderName: string;
  courseTitle: string;
  issuedAt: string;
  overrideQuiz: boolean;
  revokedAt: Date | null;
  createdAt: Date;
}

/** Where each mode's database-kept signing key lives (production takes the live key from the environment). */
const SIGNING_KEY_TABLES: Record<Mode, string> = { live: 'credential_signing_key', test: 'credential_test_signing_key' };

/** A certificates row as the statements below select it (issued_at read as text, see COLUMNS). */
interface CertificateRow {
  id: string;
  partner_id: number;
  mode: Mode;
  user_id: number;
  course_id: number;
  enrollment_id: number;
  holder_name: string;
  course_title: string;
  issued_at: string;
  override_quiz: boolean;
  revoked_at: Date | null;
  created_at: Date;
}

// issued_at as text: the certificate keeps the calendar date PostgreSQL stores, not a Date at some midnight.
const COLUMNS = `id, partner_id, mode, user_id, course_id, enrollment_id, holder_name, course_title, issued_at::text AS issued_at, override_quiz, revoked_at, created_at`;

function toCertificate(r: CertificateRow): Certificate {
  return {
    id: r.id,
    partnerId: r.partner_id,
    mode: r.mode,
    userId: r.user_id,
    courseId: r.course_id,
    enrollmentId: r.enrollment_id,
    holderName: r.holder_name,
    courseTitle: r.course_title,
    issuedAt: r.issued_at,
    overrideQuiz: r.override_quiz,
    revokedAt: r.revoked_at,
    createdAt: r.created_at,
  };
}

export type NewCertificate = Omit<Certificate, 'partnerId' | 'mode' | 'revokedAt' | 'createdAt'>;

/** Every query of the certificates feature. */
@Injectable()
export class CertificatesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The unique enrollment_id makes a concurrent insert wait for the winner and then insert nothing (null). */
  async insertOnce(db: Queryable, scope: Scope, c: NewCertificate): Promise<Certificate | null> {
    const row = await sqlOne<CertificateRow>(
      db,
      `INSERT INTO certificates (partner_id, mode, id, user_id, course_id, enrollment_id, holder_name, course_title, issued_at, override_quiz)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (enrollment_id) DO NOTHING
       RETURNING ${COLUMNS}`,
      scopeParams(scope, c.id, c.userId, c.courseId, c.enrollmentId, c.holderName, c.courseTitle, c.issuedAt, c.overrideQuiz),
    );
    return row && toCertificate(row);
  }

  async findByEnrollment(db: Queryable, scope: Scope, enrollmentId: number): Promise<Certificate | null> {
    const row = await sqlOne<CertificateRow>(
      db,
      `SELECT ${COLUMNS} FROM certificates WHERE ${inScope()} AND enrollment_id = $3`,
      scopeParams(scope, enrollmentId),
    );
    return row && toCertificate(row);
  }

  /** Any partner's certificate by its public id (verification, download, admin). */
  async findById(id: string): Promise<Certificate | null> {
    const row = await sqlOne<CertificateRow>(this.dataSource, `SELECT ${COLUMNS} FROM certificates WHERE id = $1`, [id]);
    return row && toCertificate(row);
  }

  /** Idempotent: the first revocation time is kept. Null when there is no such certificate. */
  async revoke(id: string): Promise<Certificate | null> {
    const [row] = await returning<CertificateRow>(
      this.dataSource,
      `UPDATE certificates SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING ${COLUMNS}`,
      [id],
    );
    return row ? toCertificate(row) : null;
  }

  // ---- the signing keys kept in the database (credentials/signing-key.store.ts): development's, and test mode's ----

  async keptSigningKey(mode: Mode = 'live'): Promise<Ed25519PrivateJwk | null> {
    const row = await sqlOne<{ private_jwk: Ed25519PrivateJwk }>(this.dataSource, `SELECT private_jwk FROM ${SIGNING_KEY_TABLES[mode]} WHERE singleton`);
    return row?.private_jwk ?? null;
  }

  /** The singleton row admits one key: an offer made while another instance's is kept does nothing. */
  async offerSigningKey(jwk: Ed25519PrivateJwk, mode: Mode = 'live'): Promise<void> {
    await sql(this.dataSource, `INSERT INTO ${SIGNING_KEY_TABLES[mode]} (private_jwk) VALUES ($1) ON CONFLICT (singleton) DO NOTHING`, [JSON.stringify(jwk)]);
  }
}
