import type { IssuedKey, KeyView } from '../../api-keys/keys.service';
import { form, html, Safe, statusBadge, table, time } from './html';

export function keysView(csrf: string, keys: KeyView[], created?: IssuedKey): Safe {
  const shown = created
    ? html`<section class="card" aria-labelledby="new-key-h">
        <h2 id="new-key-h">Your new key</h2>
        <p>Copy it now: it is shown this once and never again.</p>
        <p class="secret"><code id="new-key">${created.key}</code></p>
      </section>`
    : '';
  const rows = keys.map(
    (k) =>
      html`<tr>
        <td><code>${k.key_prefix}…</code></td>
        <td>${k.mode}</td>
        <td>${time(k.created_at)}</td>
        <td>${time(k.last_used_at)}</td>
        <td>
          ${k.revoked_at ? html`${statusBadge('revoked')} ${time(k.revoked_at)}` : html`<a href="/dashboard/keys/${k.id}/revoke">Revoke<span class="vh"> ${k.key_prefix}</span></a>`}
        </td>
      </tr>`,
  );
  return html`${shown}
    <section class="card" aria-labelledby="create-h">
      <h2 id="create-h">Create a key</h2>
      ${form(
        '/dashboard/keys',
        csrf,
        html`<label for="key-name">Name (optional)</label><input type="text" id="key-name" name="name" maxlength="200" autocomplete="off" />
          <button type="submit">Create key</button>`,
      )}
    </section>
    <h2>Keys</h2>
    ${table('API keys', ['Key', 'Mode', 'Created', 'Last used', 'Status'], rows, 'No keys yet.')}
    <p class="muted">"Last used" is updated at most once a minute.</p>`;
}

export function revokeConfirmView(csrf: string, key: KeyView): Safe {
  return html`<section class="card">
    <p>
      Revoke the key <code>${key.key_prefix}…</code>${key.name ? html` (${key.name})` : ''}? Calls with it will be refused within seconds, and this cannot be
      undone.
    </p>
    ${form(`/dashboard/keys/${key.id}/revoke`, csrf, html`<button type="submit" class="danger">Revoke key</button> <a href="/dashboard/keys">Cancel</a>`)}
  </section>`;
}
