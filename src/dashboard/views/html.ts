import { escapeHtml } from '../../common/html';

/** Markup already made safe: interpolated into `html` as is. */
export class Safe {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

function render(v: unknown): string {
  if (v instanceof Safe) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  if (v === null || v === undefined || v === false) return '';
  if (typeof v === 'string') return escapeHtml(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return escapeHtml(JSON.stringify(v) ?? '');
}

/** A template whose interpolations are escaped unless they are Safe (or arrays of Safe): safe by default. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Safe {
  let out = strings[0];
  values.forEach((v, i) => (out += render(v) + strings[i + 1]));
  return new Safe(out);
}

/** "2025-11-22 10:00:00 UTC" in a <time> element. */
export function time(iso: string | null): Safe {
  if (!iso) return html`<span class="muted">—</span>`;
  return html`<time datetime="${iso}">${iso.slice(0, 19).replace('T', ' ')} UTC</time>`;
}

/** A query string of the non-empty values. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** Previous / next links of a paginated list, keeping the filters. */
export function pager(path: string, filters: Record<string, string | undefined>, page: number, pages: number): Safe {
  if (pages <= 1) return html``;
  const prev = page > 1 ? html`<a href="${path}${query({ ...filters, page: page - 1 })}" rel="prev">Previous page</a>` : '';
  const next = page < pages ? html`<a href="${path}${query({ ...filters, page: page + 1 })}" rel="next">Next page</a>` : '';
  return html`<nav class="pager" aria-label="Pages">${prev} <span>Page ${page} of ${pages}</span> ${next}</nav>`;
}

/** A status code with a word for it, never colour alone. */
export function statusBadge(status: string | number | null): Safe {
  if (status === null) return html`<span class="badge bad">no answer</span>`;
  const s = String(status);
  const good = s === 'delivered' || s === 'active' || s === 'completed' || s === 'created' || /^2\d\d$/.test(s);
  const bad = s === 'failed' || s === 'disabled' || s === 'revoked' || /^[45]\d\d$/.test(s);
  return html`<span class="badge ${good ? 'good' : bad ? 'bad' : 'neutral'}">${s}</span>`;
}

/** A wide table in a scrollable, focusable region (readable at 360 px; reachable by keyboard). */
export function table(label: string, head: string[], rows: Safe[], empty: string): Safe {
  if (!rows.length) return html`<p class="empty">${empty}</p>`;
  return html`<div class="table" role="region" aria-label="${label}" tabindex="0">
    <table>
      <thead>
        <tr>
          ${head.map((h) => html`<th scope="col">${h}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </div>`;
}

/** A POST form with the session's CSRF token. */
export function form(action: string, csrf: string, body: Safe, attrs: Safe = html``): Safe {
  return html`<form method="post" action="${action}" ${attrs}><input type="hidden" name="_csrf" value="${csrf}" />${body}</form>`;
}
