import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { crossSiteWrite, ownOrigins } from '../common/cross-site';
import { DomainError } from '../common/errors';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { DashboardAuthService, DashboardSession, DASHBOARD_PATH, SESSION_COOKIE } from './dashboard-auth.service';
import { Safe } from './views/html';
import { layout, Section } from './views/layout';
import { errorView, messageView, NO_SESSION_TEXT } from './views/pages.view';

/** What a page handler renders: a title, its section in the navigation, a body and optionally a status and notice. */
export interface Rendered {
  title: string;
  body: Safe;
  status?: number;
  notice?: string;
}

const NOTICES: Record<string, string> = {
  revoked: 'The key is revoked.',
  saved: 'Saved.',
  enabled: 'The endpoint is enabled.',
  disabled: 'The endpoint is disabled: matching events are recorded as skipped and not sent.',
  test_sent: 'A test event is on its way. Its delivery is listed below; reload to see its attempts.',
  redelivered: 'Queued for redelivery. Reload to see the new attempt.',
  deleted: 'The endpoint is deleted.',
};

export function cookieOf(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * Sends the dashboard's HTML: no script, one nonce'd stylesheet, forms only to this origin, framed only by the
 * partner's allowed origins ('none' without a session or origins), never cached, no referrer (links carry tokens).
 */
@Injectable()
export class DashboardPages {
  private readonly publicOrigin: string;

  constructor(
    private readonly auth: DashboardAuthService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.publicOrigin = new URL(config.publicBaseUrl).origin;
  }

  send(res: Response, page: Rendered, session: DashboardSession | undefined, section?: Section, frameOrigins: string[] = []): void {
    const nonce = randomBytes(16).toString('base64');
    const notice = page.notice ? (NOTICES[page.notice] ?? undefined) : undefined;
    const origins = session ? session.account.allowedOrigins : frameOrigins;
    res
      .status(page.status ?? 200)
      .set({
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-store',
        'Referrer-Policy': 'no-referrer',
        'X-Robots-Tag': 'noindex, nofollow',
        'Content-Security-Policy': `default-src 'none'; style-src 'nonce-${nonce}'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors ${origins.length ? origins.join(' ') : "'none'"}`,
      })
      .send(layout({ title: page.title, nonce, session, section, notice }, page.body));
  }

  /** The signed-in session, or null after answering the "sign in first" page (401). */
  async session(req: Request, res: Response): Promise<DashboardSession | null> {
    const session = await this.auth.session(cookieOf(req, SESSION_COOKIE));
    if (!session) this.send(res, { title: 'Sign in', body: messageView(NO_SESSION_TEXT), status: 401 }, undefined);
    return session;
  }

  /**
   * A change: the session, a same-origin request (Sec-Fetch-Site or Origin) and the session's CSRF token, then the
   * action; its DomainError becomes an error page with the error's status. Refusals are 403 pages.
   */
  async change(req: Request, res: Response, back: string, action: (s: DashboardSession) => Promise<Rendered | string>): Promise<void> {
    const session = await this.session(req, res);
    if (!session) return;
    const body = req.body as Record<string, unknown>;
    if (crossSiteWrite(req, ownOrigins(req, this.publicOrigin)) !== null || !this.auth.csrfMatches(session, body._csrf)) {
      return this.send(
        res,
        {
          title: 'Request refused',
          body: messageView('This change did not come from a dashboard page of this session (missing or wrong CSRF token, or another site).', {
            href: back,
            label: 'Back',
          }),
          status: 403,
        },
        session,
      );
    }
    try {
      const outcome = await action(session);
      if (typeof outcome === 'string') res.redirect(303, outcome);
      else this.send(res, outcome, session);
    } catch (e) {
      if (!(e instanceof DomainError) || e.status >= 500) throw e;
      this.send(res, { title: 'Not done', body: errorView(e, back), status: e.status }, session);
    }
  }

  /** A read: the session, then the page; a DomainError (a bad filter, another partner's id) becomes an error page. */
  async view(req: Request, res: Response, section: Section, render: (s: DashboardSession) => Promise<Rendered>): Promise<void> {
    const session = await this.session(req, res);
    if (!session) return;
    try {
      const page = await render(session);
      this.send(res, { ...page, notice: page.notice ?? (typeof req.query.notice === 'string' ? req.query.notice : undefined) }, session, section);
    } catch (e) {
      if (!(e instanceof DomainError) || e.status >= 500) throw e;
      this.send(res, { title: 'Not found', body: errorView(e, DASHBOARD_PATH), status: e.status }, session, section);
    }
  }
}
