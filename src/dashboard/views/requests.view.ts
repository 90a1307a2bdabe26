import type { RequestView } from '../../request-log/request-log.service';
import { html, pager, Safe, statusBadge, table, time } from './html';

export function requestsView(
  list: { requests: RequestView[]; total: number; page: number; pages: number },
  status: string | undefined,
  retentionDays: number,
): Safe {
  const rows = list.requests.map(
    (r) =>
      html`<tr>
        <td>${time(r.created_at)}</td>
        <td>${r.method}</td>
        <td><code>${r.path}</code></td>
        <td>${statusBadge(r.status)}</td>
        <td>${r.duration_ms} ms</td>
        <td><code>${r.request_id}</code></td>
        <td>${r.key_prefix ? html`<code>${r.key_prefix}…</code>` : '—'}</td>
      </tr>`,
  );
  const options = ['2xx', '4xx', '5xx', '400', '401', '403', '404', '409', '422', '429'];
  return html`<form method="get" action="/dashboard/requests" class="card filters" aria-label="Filter requests">
      <div>
        <label for="r-status">Status</label
        ><select id="r-status" name="status">
          <option value="">Any</option>
          ${options.map((o) => html`<option value="${o}" ${o === status ? html` selected` : ''}>${o}</option>`)}
        </select>
      </div>
      <div><button type="submit">Filter</button></div>
    </form>
    <p class="muted">API calls made with this mode's keys, newest first, kept ${retentionDays} days. Quote the request id when you ask us for help.</p>
    <p>${list.total} ${list.total === 1 ? 'request' : 'requests'}</p>
    ${table('Requests', ['Time', 'Method', 'Path', 'Status', 'Duration', 'X-Request-Id', 'Key'], rows, 'No requests recorded.')}
    ${pager('/dashboard/requests', { status }, list.page, list.pages)}`;
}
