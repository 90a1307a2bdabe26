import { Inject, Injectable } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { parseApiKey } from '../api-keys/api-key';
import { KeysService } from '../api-keys/keys.service';
import { AuthFailureLimiter } from '../auth/auth-failure-limiter';
import { DomainError, ERROR_CODES, ErrorCode } from '../common/errors';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { crossSiteWrite, ownOrigins } from '../common/cross-site';

const REALM = 'Basic realm="Partner API admin", charset="UTF-8"';
const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Admin authentication for browser pages. A browser cannot add X-API-Key to a navigation, so the admin key is
 * accepted as the password of HTTP Basic auth (any user name); scripts may still send X-API-Key. Only an active,
 * unrevoked admin key passes: no or bad credentials → 401 with a Basic challenge, a partner key → 403 admin_only.
 * Writes that come from another site are refused first (403 origin_not_allowed): browsers resend Basic credentials.
 */
@Injectable()
export class AdminBasicAuth {
  private readonly publicOrigin: string;

  constructor(
    private readonly keys: KeysService,
    private readonly failures: AuthFailureLimiter,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.publicOrigin = new URL(config.publicBaseUrl).origin;
  }

  middleware(): RequestHandler {
    return (req, res, next) => void this.check(req, res, next).catch(() => this.refuse(req, res, 'service_unavailable'));
  }

  private async check(req: Request, res: Response, next: NextFunction): Promise<void> {
    const crossSite = crossSiteWrite(req, ownOrigins(req, this.publicOrigin));
    if (crossSite) return this.refuse(req, res, 'origin_not_allowed', `Dashboard writes must come from the dashboard itself (refused ${crossSite}).`);
    const raw = keyOf(req);
    if (!raw) return this.refuse(req, res, 'missing_api_key', 'Admin credentials required: HTTP Basic auth with an admin API key as the password.');
    const parsed = parseApiKey(raw);
    const record = parsed ? await this.keys.find(parsed.hash) : null;
    if (!record) return this.refuseError(req, res, await this.failures.refusal(req.ip));
    if (record.revoked) return this.refuse(req, res, 'revoked_api_key');
    if (record.partnerStatus !== 'active') return this.refuse(req, res, 'account_suspended');
    if (record.role !== 'admin') return this.refuse(req, res, 'admin_only');
    // The queues hold live jobs (learners' names and e-mails in deliveries); a test-mode admin key acts on test data only.
    if (record.mode !== 'live') return this.refuse(req, res, 'admin_only', 'The queue dashboard needs a live-mode admin key.');
    res.setHeader('Cache-Control', 'no-store');
    next();
  }

  private refuseError(req: Request, res: Response, error: DomainError): void {
    for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
    this.refuse(req, res, error.code, error.message);
  }

  private refuse(req: Request, res: Response, code: ErrorCode, text?: string): void {
    const [status, message] = ERROR_CODES[code];
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    if (status === 401) res.setHeader('WWW-Authenticate', REALM);
    res.setHeader('X-Request-Id', requestId);
    res.status(status).json({ status: 'error', error: { code, message: text ?? message, request_id: requestId } });
  }
}

/** The key from `Authorization: Basic base64(user:key)`, else from X-API-Key. */
function keyOf(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (header?.startsWith('Basic ')) {
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon >= 0 ? decoded.slice(colon + 1) : undefined;
  }
  const apiKey = req.headers['x-api-key'];
  return typeof apiKey === 'string' && apiKey ? apiKey : undefined;
}
