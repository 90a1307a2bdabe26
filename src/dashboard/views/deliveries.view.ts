import type { DeliveryDetailDto, DeliveryDto } from '../../webhooks/dto/delivery.dto';
import type { WebhookDto } from '../../webhooks/dto/webhook.dto';
import { PUBLIC_EVENT_TYPES } from '../../events/event-map';
import { form, html, pager, Safe, statusBadge, table, time } from './html';

export interface DeliveryFilters {
  status?: string;
  event?: string;
  endpoint?: string;
  from?: string;
  to?: string;
}

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'skipped'];
export const TEST_EVENT = 'webhook.test';

function select(id: string, name: string, label: string, options: Array<[string, string]>, value: string | undefined): Safe {
  return html`<div>
    <label for="${id}">${label}</label
    ><select id="${id}" name="${name}">
      <option value="">Any</option>
      ${options.map(([v, text]) => html`<option value="${v}" ${v === value ? html` selected` : ''}>${text}</option>`)}
    </select>
  </div>`;
}

export function deliveriesView(
  list: { deliveries: Array<DeliveryDto & { subscription_id: string }>; total: number; page: number; pages: number },
  filters: DeliveryFilters,
  endpoints: WebhookDto[],
): Safe {
  const urlOf = new Map(endpoints.map((e) => [e.id, e.url]));
  const rows = list.deliveries.map(
    (d) =>
      html`<tr>
        <td><a href="/dashboard/webhooks/${d.subscription_id}/deliveries/${d.webhook_id}">${d.webhook_id}</a></td>
        <td>${d.event}</td>
        <td>${statusBadge(d.status)}</td>
        <td>${d.last_status_code ?? '—'}</td>
        <td>${d.attempts}</td>
        <td>${urlOf.get(d.subscription_id) ?? d.subscription_id}</td>
        <td>${time(d.created_at)}</td>
      </tr>`,
  );
  return html`<form method="get" action="/dashboard/deliveries" class="card filters" aria-label="Filter deliveries">
      ${select(
        'f-status',
        'status',
        'Status',
        DELIVERY_STATUSES.map((s) => [s, s]),
        filters.status,
      )}
      ${select(
        'f-event',
        'event',
        'Event type',
        [...PUBLIC_EVENT_TYPES, TEST_EVENT].map((e) => [e, e]),
        filters.event,
      )}
      ${select(
        'f-endpoint',
        'endpoint',
        'Endpoint',
        endpoints.map((e) => [e.id, e.url]),
        filters.endpoint,
      )}
      <div><label for="f-from">From (UTC)</label><input type="datetime-local" id="f-from" name="from" value="${filters.from ?? ''}" /></div>
      <div><label for="f-to">To (UTC)</label><input type="datetime-local" id="f-to" name="to" value="${filters.to ?? ''}" /></div>
      <div><button type="submit">Filter</button> <a href="/dashboard/deliveries">Clear</a></div>
    </form>
    <p>${list.total} ${list.total === 1 ? 'delivery' : 'deliveries'}</p>
    ${table('Deliveries', ['Delivery', 'Event', 'Status', 'Last HTTP status', 'Attempts', 'Endpoint', 'Created'], rows, 'No deliveries match.')}
    ${pager('/dashboard/deliveries', { ...filters }, list.page, list.pages)}`;
}

export function deliveryView(csrf: string, endpoint: WebhookDto, d: DeliveryDetailDto): Safe {
  const attempts = d.attempts.map(
    (a, i) =>
      html`<section class="card attempt" aria-labelledby="attempt-${i}">
        <h3 id="attempt-${i}">Attempt ${i + 1}: ${statusBadge(a.status_code)} in ${a.duration_ms} ms</h3>
        <dl class="facts">
          <dt>Sent</dt>
          <dd>${time(a.attempted_at)}</dd>
          <dt>Status code</dt>
          <dd class="status-code">${a.status_code ?? 'none (no answer)'}</dd>
          <dt>Error</dt>
          <dd>${a.error ?? 'none'}</dd>
        </dl>
        ${
          a.response_excerpt !== null
            ? html`<h4>Response (first kilobyte)</h4>
                <pre class="response">${a.response_excerpt}</pre>`
            : ''
        }
        ${
          a.request_headers
            ? html`<details>
                <summary>Request headers</summary>
                <pre class="headers">
${Object.entries(a.request_headers)
                    .map(([k, v]) => `${k}: ${v}\n`)
                    .join('')}</pre>
              </details>`
            : ''
        }
      </section>`,
  );
  return html`<section class="card">
      <dl class="facts">
        <dt>Endpoint</dt>
        <dd><a href="/dashboard/webhooks/${endpoint.id}">${endpoint.url}</a></dd>
        <dt>Event</dt>
        <dd>${d.event}</dd>
        <dt>Status</dt>
        <dd id="delivery-status">${statusBadge(d.status)}</dd>
        <dt>Created</dt>
        <dd>${time(d.created_at)}</dd>
        <dt>Delivered</dt>
        <dd>${time(d.delivered_at)}</dd>
        <dt>Next attempt</dt>
        <dd>${time(d.next_attempt_at)}</dd>
      </dl>
      ${form(`/dashboard/webhooks/${endpoint.id}/deliveries/${d.webhook_id}/redeliver`, csrf, html`<button type="submit">Redeliver</button>`)}
      <p class="muted">Redeliver sends the same body with the same webhook-id again. Reload the page to see new attempts.</p>
    </section>
    <h2>Payload</h2>
    <pre class="payload">${JSON.stringify(d.payload, null, 2)}</pre>
    <h2>Attempts (${d.attempts.length})</h2>
    ${d.attempts.length ? attempts : html`<p class="empty">No attempt yet.</p>`}`;
}
