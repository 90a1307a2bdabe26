import { DomainError, ERROR_CODES } from '../../common/errors';
import { html, Safe } from './html';

/** The landing page of a sign-in link: one button, so link scanners that fetch URLs cannot use the link up. */
export function signInView(token: string, partnerName: string, framed: boolean): Safe {
  return html`<section class="card">
    <p>Sign in to the dashboard of <strong>${partnerName}</strong>. The link works once.</p>
    ${framed ? html`<p>Browsers do not keep a sign-in inside a frame of another site, so the dashboard opens in a new tab.</p>` : ''}
    <form method="post" action="/dashboard/sign-in" ${framed ? html` target="_blank"` : ''}>
      <input type="hidden" name="token" value="${token}" /> <button type="submit">Open the dashboard</button>
    </form>
  </section>`;
}

export function messageView(text: string, next?: { href: string; label: string }): Safe {
  return html`<section class="card">
    <p>${text}</p>
    ${next ? html`<p><a href="${next.href}">${next.label}</a></p>` : ''}
  </section>`;
}

export const SIGNED_OUT_TEXT = 'You are signed out. To sign in again, create a link with POST /api/partners/me/dashboard-link (your API key) and open it.';
export const NO_SESSION_TEXT =
  'You are not signed in, or your session ended (sessions last 12 hours). Create a sign-in link with POST /api/partners/me/dashboard-link (with your API key) and open it.';

/** What a refused change says: the error's message and its field details, never internals. */
export function errorView(e: DomainError, back: string): Safe {
  const details = Array.isArray(e.details) ? (e.details as Array<{ field?: string; message?: string }>) : [];
  return html`<section class="error" role="alert">
      <p><strong>${e.message || ERROR_CODES[e.code][1]}</strong> <code>${e.code}</code></p>
      ${
        details.length
          ? html`<ul>
              ${details.map((d) => html`<li>${d.message ?? ''}</li>`)}
            </ul>`
          : ''
      }
    </section>
    <p><a href="${back}">Back</a></p>`;
}
