import type { WebhookDto } from '../../webhooks/dto/webhook.dto';
import { PUBLIC_EVENT_TYPES } from '../../events/event-map';
import { form, html, Safe, statusBadge, table, time } from './html';

function eventBoxes(selected: string[]): Safe {
  return html`<fieldset>
    <legend>Events</legend>
    ${PUBLIC_EVENT_TYPES.map(
      (e) => html`<label><input type="checkbox" name="events" value="${e}" ${selected.includes(e) ? html` checked` : ''} /> ${e}</label>`,
    )}
  </fieldset>`;
}

export function webhooksView(csrf: string, hooks: WebhookDto[], created?: { id: string; secret: string }): Safe {
  const shown = created
    ? html`<section class="card" aria-labelledby="secret-h">
        <h2 id="secret-h">Signing secret of the new endpoint</h2>
        <p>Copy it now: it is shown this once. Verify deliveries with it (Standard Webhooks libraries take <code>whsec_</code> + base64 of it).</p>
        <p class="secret"><code id="new-secret">${created.secret}</code></p>
        <p><a href="/dashboard/webhooks/${created.id}">Open the endpoint</a></p>
      </section>`
    : '';
  const rows = hooks.map(
    (w) =>
      html`<tr>
        <td><a href="/dashboard/webhooks/${w.id}">${w.url}</a></td>
        <td>${w.events.join(', ')}</td>
        <td>${statusBadge(w.status)}</td>
        <td>${time(w.created_at)}</td>
      </tr>`,
  );
  return html`${shown}
    <h2>Endpoints</h2>
    ${table('Webhook endpoints', ['URL', 'Events', 'Status', 'Created'], rows, 'No endpoints yet.')}
    <section class="card" aria-labelledby="add-h">
      <h2 id="add-h">Add an endpoint</h2>
      ${form(
        '/dashboard/webhooks',
        csrf,
        html`<label for="wh-url">URL</label><input type="url" id="wh-url" name="url" required maxlength="2048" placeholder="https://example.com/webhooks" />
          ${eventBoxes([])}
          <label for="wh-secret">Signing secret (16–256 characters; leave empty to have one made for you)</label
          ><input type="text" id="wh-secret" name="secret" minlength="16" maxlength="256" autocomplete="off" /> <button type="submit">Add endpoint</button>`,
      )}
    </section>`;
}

export function webhookView(csrf: string, w: WebhookDto): Safe {
  const base = `/dashboard/webhooks/${w.id}`;
  const since = new Date(Date.now() - 86_400_000).toISOString().slice(0, 16);
  const toggle =
    w.status === 'active'
      ? html`<input type="hidden" name="status" value="disabled" /><button type="submit" class="secondary">Disable endpoint</button>`
      : html`<input type="hidden" name="status" value="active" /><button type="submit">Enable endpoint</button>`;
  return html`<section class="card">
      <dl class="facts">
        <dt>URL</dt>
        <dd>${w.url}</dd>
        <dt>Status</dt>
        <dd>${statusBadge(w.status)}${w.disabled_reason ? html` ${w.disabled_reason}` : ''}</dd>
        <dt>Id</dt>
        <dd><code>${w.id}</code></dd>
        <dt>Secret overlap</dt>
        <dd>${w.previous_secret_expires_at ? html`the previous secret also signs until ${time(w.previous_secret_expires_at)}` : 'none'}</dd>
        <dt>Created</dt>
        <dd>${time(w.created_at)}</dd>
      </dl>
      <p><a href="/dashboard/deliveries?endpoint=${w.id}">Deliveries of this endpoint</a></p>
      ${form(`${base}/test`, csrf, html`<button type="submit">Send a test event</button>`)} ${form(`${base}/status`, csrf, toggle)}
    </section>
    <section class="card" aria-labelledby="events-h">
      <h2 id="events-h">Events</h2>
      ${form(`${base}/events`, csrf, html`${eventBoxes(w.events)}<button type="submit">Save events</button>`)}
    </section>
    <section class="card" aria-labelledby="rotate-h">
      <h2 id="rotate-h">Rotate the signing secret</h2>
      <p>The new secret signs from now on; the current one keeps signing beside it for the overlap, so your receiver can switch without missing a delivery.</p>
      ${form(
        `${base}/rotate-secret`,
        csrf,
        html`<label for="rot-secret">New secret (leave empty to have one made for you)</label
          ><input type="text" id="rot-secret" name="secret" minlength="16" maxlength="256" autocomplete="off" />
          <label for="rot-overlap">Overlap in hours (0–168)</label><input type="number" id="rot-overlap" name="overlap_hours" min="0" max="168" value="24" />
          <button type="submit">Rotate secret</button>`,
      )}
    </section>
    <section class="card" aria-labelledby="recover-h">
      <h2 id="recover-h">Recover failed deliveries</h2>
      <p>Sends again every failed or skipped delivery created since a time (at most 14 days ago).</p>
      ${form(
        `${base}/recover`,
        csrf,
        html`<label for="rec-since">Since (UTC)</label><input type="datetime-local" id="rec-since" name="since" required value="${since}" />
          <button type="submit">Recover</button>`,
      )}
    </section>
    <section class="card" aria-labelledby="delete-h">
      <h2 id="delete-h">Delete</h2>
      <p><a href="${base}/delete">Delete this endpoint and its delivery log…</a></p>
    </section>`;
}

export function deleteConfirmView(csrf: string, w: WebhookDto): Safe {
  return html`<section class="card">
    <p>Delete the endpoint <strong>${w.url}</strong> and its whole delivery log? This cannot be undone.</p>
    ${form(`/dashboard/webhooks/${w.id}/delete`, csrf, html`<button type="submit" class="danger">Delete endpoint</button> <a href="/dashboard/webhooks/${w.id}">Cancel</a>`)}
  </section>`;
}

/** Shown once, after the secret was rotated. */
export function rotatedView(w: WebhookDto, secret: string): Safe {
  return html`<section class="card">
    <h2>New signing secret</h2>
    <p>Copy it now: it is shown this once.</p>
    <p class="secret"><code id="new-secret">${secret}</code></p>
    <p>
      ${w.previous_secret_expires_at ? html`The previous secret also signs until ${time(w.previous_secret_expires_at)}.` : 'The previous secret no longer signs.'}
    </p>
    <p><a href="/dashboard/webhooks/${w.id}">Back to the endpoint</a></p>
  </section>`;
}
