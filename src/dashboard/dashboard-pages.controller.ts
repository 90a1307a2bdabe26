import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { KeysService } from '../api-keys/keys.service';
import { Public } from '../auth/public.decorator';
import { monthOf, UsageLimiter } from '../auth/usage-limiter';
import { RawResponse } from '../common/envelope.interceptor';
import { crossSiteWrite, ownOrigins } from '../common/cross-site';
import { DomainError } from '../common/errors';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { JobsService } from '../jobs/jobs.service';
import { parseStatusFilter, RequestLogService } from '../request-log/request-log.service';
import { REQUEST_RETENTION_DAYS } from '../request-log/request-recorder';
import { DashboardAuthService, SESSION_COOKIE, SESSION_TTL_MS } from './dashboard-auth.service';
import { cookieOf, DashboardPages } from './dashboard-pages';
import { jobsView, jobView } from './views/jobs.view';
import { keysView, revokeConfirmView } from './views/keys.view';
import { overviewView } from './views/overview.view';
import { messageView, SIGNED_OUT_TEXT, signInView } from './views/pages.view';
import { requestsView } from './views/requests.view';

/** Sign-in attempts (link pages and their use) per client IP and minute. */
export const SIGN_IN_LIMIT_PER_MINUTE = 20;
const PAGE_SIZE = 25;

export function pageParam(value: unknown): number {
  const n = typeof value === 'string' && /^\d{1,7}$/.test(value) ? Number(value) : 1;
  return Math.max(1, n);
}

/**
 * The partner dashboard (outside /api, a session cookie instead of a key): sign-in through a link, the overview, API
 * keys, recent requests and bulk jobs. The webhook pages are in DashboardWebhooksController.
 */
@ApiExcludeController()
@Public()
@RawResponse()
@Controller('dashboard')
export class DashboardPagesController {
  private readonly publicOrigin: string;

  constructor(
    private readonly auth: DashboardAuthService,
    private readonly pages: DashboardPages,
    private readonly limiter: UsageLimiter,
    private readonly keys: KeysService,
    private readonly requests: RequestLogService,
    private readonly jobs: JobsService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.publicOrigin = new URL(config.publicBaseUrl).origin;
  }

  @Get('sign-in')
  async signInPage(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (!(await this.withinLimit(req, res))) return;
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    const account = await this.auth.peekLink(token);
    if (!account) return this.pages.send(res, { title: 'Link not valid', body: messageView(LINK_GONE), status: 410 }, undefined);
    // In a frame of another site the session cookie (SameSite=Lax) would be dropped: the form opens a new tab instead.
    const framed = req.headers['sec-fetch-dest'] === 'iframe' && req.headers['sec-fetch-site'] === 'cross-site';
    this.pages.send(res, { title: 'Sign in', body: signInView(token, account.partnerName, framed) }, undefined, undefined, account.allowedOrigins);
  }

  @Post('sign-in')
  async signIn(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (!(await this.withinLimit(req, res))) return;
    // Login CSRF: another site must not sign a browser in to a dashboard of its choosing.
    if (crossSiteWrite(req, ownOrigins(req, this.publicOrigin)) !== null) {
      return this.pages.send(res, { title: 'Request refused', body: messageView('Sign-in must come from the sign-in page.'), status: 403 }, undefined);
    }
    const token = (req.body as Record<string, unknown>).token;
    const session = typeof token === 'string' ? await this.auth.signIn(token) : null;
    if (!session) return this.pages.send(res, { title: 'Link not valid', body: messageView(LINK_GONE), status: 410 }, undefined);
    res.cookie(SESSION_COOKIE, session.cookie, {
      httpOnly: true,
      secure: this.auth.secureCookies,
      sameSite: 'lax',
      path: '/dashboard',
      maxAge: SESSION_TTL_MS,
    });
    res.redirect(303, '/dashboard');
  }

  @Post('sign-out')
  signOut(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.pages.change(req, res, '/dashboard', async () => {
      await this.auth.signOut(cookieOf(req, SESSION_COOKIE));
      res.clearCookie(SESSION_COOKIE, { httpOnly: true, secure: this.auth.secureCookies, sameSite: 'lax', path: '/dashboard' });
      return '/dashboard/signed-out';
    });
  }

  @Get('signed-out')
  signedOut(@Res() res: Response): void {
    this.pages.send(res, { title: 'Signed out', body: messageView(SIGNED_OUT_TEXT) }, undefined);
  }

  @Get()
  overview(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.pages.view(req, res, 'overview', async (s) => {
      const month = monthOf();
      const [counted, days] = await Promise.all([this.limiter.used(s.scope.partnerId, s.scope.mode), this.requests.usageByDay(s.scope, month)]);
      // Unlimited plans keep no quota counter: their month is the sum of its days.
      const calls = s.account.plan.monthlyQuota === null ? days.reduce((sum, d) => sum + d.calls, 0) : counted;
      return { title: 'Overview', body: overviewView({ account: s.account, month, calls, limit: s.account.plan.monthlyQuota, days }) };
    });
  }

  @Get('keys')
  keyList(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.pages.view(req, res, 'keys', async (s) => ({ title: 'API keys', body: keysView(s.csrfToken, await this.keys.listOf(s.scope)) }));
  }

  @Post('keys')
  createKey(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.pages.change(req, res, '/dashboard/keys', async (s) => {
      const raw = (req.body as Record<string, unknown>).name;
      const name = typeof raw === 'string' && raw.trim() ? raw.trim().slice(0, 200) : null;
      const issued = await this.keys.issue(null, s.scope.partnerId, s.scope.mode, 'partner', name);
      return { title: 'API keys', status: 201, body: keysView(s.csrfToken, await this.keys.listOf(s.scope), issued) };
    });
  }

  @Get('keys/:id/revoke')
  confirmRevoke(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.pages.view(req, res, 'keys', async (s) => {
      const key = (await this.keys.listOf(s.scope)).find((k) => k.id === id && !k.revoked_at);
      if (!key) throw new DomainError('api_key_not_found');
      return { title: 'Revoke key', body: revokeConfirmView(s.csrfToken, key) };
    });
  }

  @Post('keys/:id/revoke')
  revokeKey(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.pages.change(req, res, '/dashboard/keys', async (s) => {
      await this.keys.revokeOf(s.scope, id);
      return '/dashboard/keys?notice=revoked';
    });
  }

  @Get('requests')
  requestList(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.pages.view(req, res, 'requests', async (s) => {
      const raw = typeof req.query.status === 'string' && req.query.status ? req.query.status : undefined;
      const status = parseStatusFilter(raw);
      if (raw && !status) throw new DomainError('validation_failed', [{ field: 'status', message: 'status must be 2xx, 4xx, 5xx or a status code' }]);
      const list = await this.requests.recent(s.scope, status, { page: pageParam(req.query.page), limit: PAGE_SIZE });
      return { title: 'Requests', body: requestsView(list, raw, REQUEST_RETENTION_DAYS) };
    });
  }

  @Get('jobs')
  jobList(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.pages.view(req, res, 'jobs', async (s) => ({
      title: 'Bulk jobs',
      body: jobsView(await this.jobs.list(s.scope, { page: pageParam(req.query.page), limit: PAGE_SIZE })),
    }));
  }

  @Get('jobs/:id')
  job(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.pages.view(req, res, 'jobs', async (s) => ({ title: `Job ${id}`, body: jobView(await this.jobs.get(s.scope, id)) }));
  }

  private async withinLimit(req: Request, res: Response): Promise<boolean> {
    const { allowed, retryAfter } = await this.limiter.window('dashboard-sign-in', req.ip ?? 'unknown', SIGN_IN_LIMIT_PER_MINUTE, 60);
    if (allowed) return true;
    res.set('Retry-After', String(retryAfter));
    this.pages.send(
      res,
      { title: 'Too many attempts', body: messageView(`Too many sign-in attempts from your address. Try again in ${retryAfter} seconds.`), status: 429 },
      undefined,
    );
    return false;
  }
}

const LINK_GONE =
  'This sign-in link is not valid: it was already used, it expired (links last 10 minutes), or it was never issued. Create a new one with POST /api/partners/me/dashboard-link.';
