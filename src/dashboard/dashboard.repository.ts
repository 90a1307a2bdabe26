import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { affected, returning, sql, sqlOne } from '../common/database';
import type { Mode } from '../common/scope';

/** A dashboard session as a request reads it. */
export interface SessionRow {
  partner_id: number;
  mode: Mode;
  csrf_token: string;
  expires_at: Date;
}

/** Every query of the dashboard's sign-in links and sessions; tokens are only ever stored as their SHA-256. */
@Injectable()
export class DashboardRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Stores a new link, and drops links that expired more than a day ago (kept that long to say "expired", not "unknown"). */
  async insertLink(tokenHash: string, partnerId: number, mode: Mode, expiresAt: Date): Promise<void> {
    await affected(this.dataSource, `DELETE FROM dashboard_links WHERE expires_at < now() - interval '1 day'`);
    await sql(this.dataSource, `INSERT INTO dashboard_links (token_hash, partner_id, mode, expires_at) VALUES ($1, $2, $3, $4)`, [
      tokenHash,
      partnerId,
      mode,
      expiresAt,
    ]);
  }

  /** The partner of a link that can still be used (unused, unexpired), without using it; null otherwise. */
  usableLink(tokenHash: string): Promise<{ partner_id: number; mode: Mode } | null> {
    return sqlOne(this.dataSource, `SELECT partner_id, mode FROM dashboard_links WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now()`, [
      tokenHash,
    ]);
  }

  /** Uses the link, once: of two concurrent uses one gets the row, the other null. */
  async useLink(tokenHash: string): Promise<{ partner_id: number; mode: Mode } | null> {
    const [row] = await returning<{ partner_id: number; mode: Mode }>(
      this.dataSource,
      `UPDATE dashboard_links SET used_at = now() WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING partner_id, mode`,
      [tokenHash],
    );
    return row ?? null;
  }

  /** Stores a session, and drops expired ones. */
  async insertSession(idHash: string, partnerId: number, mode: Mode, csrfToken: string, expiresAt: Date): Promise<void> {
    await affected(this.dataSource, `DELETE FROM dashboard_sessions WHERE expires_at < now()`);
    await sql(this.dataSource, `INSERT INTO dashboard_sessions (id_hash, partner_id, mode, csrf_token, expires_at) VALUES ($1, $2, $3, $4, $5)`, [
      idHash,
      partnerId,
      mode,
      csrfToken,
      expiresAt,
    ]);
  }

  session(idHash: string): Promise<SessionRow | null> {
    return sqlOne<SessionRow>(
      this.dataSource,
      `SELECT partner_id, mode, csrf_token, expires_at FROM dashboard_sessions WHERE id_hash = $1 AND expires_at > now()`,
      [idHash],
    );
  }

  async deleteSession(idHash: string): Promise<void> {
    await affected(this.dataSource, `DELETE FROM dashboard_sessions WHERE id_hash = $1`, [idHash]);
  }
}
