import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { KeysService, PartnerAccount } from '../api-keys/keys.service';
import type { Scope } from '../common/scope';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { DashboardRepository } from './dashboard.repository';

export const LINK_TTL_MS = 10 * 60_000;
export const SESSION_TTL_MS = 12 * 3_600_000;
export const SESSION_COOKIE = 'partner_dashboard';
export const DASHBOARD_PATH = '/dashboard';

/** A signed-in dashboard request: whose data it sees (partner and mode), the partner's plan, and its CSRF token. */
export interface DashboardSession {
  scope: Scope;
  account: PartnerAccount;
  csrfToken: string;
  expiresAt: Date;
}

const sha256 = (token: string) => createHash('sha256').update(token).digest('hex');
const token = () => randomBytes(32).toString('base64url');
/** Tokens are 43 base64url characters; anything else is not looked up. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Magic-link sign-in to the partner dashboard. A key holder asks for a link (single use, valid LINK_TTL_MS); using it
 * opens a session of SESSION_TTL_MS for that partner and mode. Links and sessions are stored as SHA-256 only, so a
 * database leak opens nothing. A suspended partner's sessions stop working at once (checked on every request).
 */
@Injectable()
export class DashboardAuthService {
  constructor(
    private readonly repo: DashboardRepository,
    private readonly keys: KeysService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async createLink(scope: Scope): Promise<{ url: string; expires_at: string }> {
    const raw = token();
    const expiresAt = new Date(Date.now() + LINK_TTL_MS);
    await this.repo.insertLink(sha256(raw), scope.partnerId, scope.mode, expiresAt);
    return { url: `${this.config.publicBaseUrl}${DASHBOARD_PATH}/sign-in?token=${raw}`, expires_at: expiresAt.toISOString() };
  }

  /** The account a link would sign in to, without using it (the confirmation page); null when the link is not usable. */
  async peekLink(raw: string): Promise<PartnerAccount | null> {
    if (!TOKEN_SHAPE.test(raw)) return null;
    const link = await this.repo.usableLink(sha256(raw));
    return link ? this.activeAccount(link.partner_id) : null;
  }

  /** Uses the link and opens a session: the cookie value and its expiry; null when the link is unknown, used or expired. */
  async signIn(raw: string): Promise<{ cookie: string; expiresAt: Date } | null> {
    if (!TOKEN_SHAPE.test(raw)) return null;
    const link = await this.repo.useLink(sha256(raw));
    if (!link || !(await this.activeAccount(link.partner_id))) return null;
    const cookie = token();
    const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
    await this.repo.insertSession(sha256(cookie), link.partner_id, link.mode, token(), expiresAt);
    return { cookie, expiresAt };
  }

  async session(cookie: string | undefined): Promise<DashboardSession | null> {
    if (!cookie || !TOKEN_SHAPE.test(cookie)) return null;
    const row = await this.repo.session(sha256(cookie));
    if (!row) return null;
    const account = await this.activeAccount(row.partner_id);
    if (!account) return null;
    return { scope: { partnerId: row.partner_id, mode: row.mode }, account, csrfToken: row.csrf_token, expiresAt: row.expires_at };
  }

  async signOut(cookie: string | undefined): Promise<void> {
    if (cookie && TOKEN_SHAPE.test(cookie)) await this.repo.deleteSession(sha256(cookie));
  }

  /** Whether a form's CSRF token is the session's (constant time). */
  csrfMatches(session: DashboardSession, given: unknown): boolean {
    if (typeof given !== 'string' || given.length !== session.csrfToken.length) return false;
    return timingSafeEqual(Buffer.from(given), Buffer.from(session.csrfToken));
  }

  /** Secure outside development (plain-HTTP development servers would never send it back). */
  get secureCookies(): boolean {
    return this.config.nodeEnv !== 'development';
  }

  private async activeAccount(partnerId: number): Promise<PartnerAccount | null> {
    const account = await this.keys.accountOf(partnerId);
    return account && account.partnerStatus === 'active' ? account : null;
  }
}
