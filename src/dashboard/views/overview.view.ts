import type { PartnerAccount } from '../../api-keys/keys.service';
import { html, Safe } from './html';

export interface OverviewData {
  account: PartnerAccount;
  month: string;
  calls: number;
  limit: number | null;
  days: Array<{ day: string; calls: number }>;
}

/** Calls per day as an inline SVG bar chart, with the same numbers as a table for screen readers and keyboards. */
function chart(days: OverviewData['days']): Safe {
  const max = Math.max(1, ...days.map((d) => d.calls));
  const w = 24;
  const h = 160;
  const bars = days.map((d, i) => {
    const bh = Math.round((d.calls / max) * (h - 20));
    return html`<rect x="${i * w + 4}" y="${h - bh}" width="${w - 8}" height="${bh}" fill="#0b57d0"><title>${d.day}: ${d.calls} calls</title></rect>`;
  });
  const labels = days
    .filter((_, i) => i % 5 === 0)
    .map(
      (d) => html`<text x="${Number(d.day.slice(8)) * w - w / 2}" y="${h + 16}" font-size="11" text-anchor="middle" fill="#1b1f24">${d.day.slice(8)}</text>`,
    );
  const busiest = days.reduce((a, b) => (b.calls > a.calls ? b : a), days[0]);
  return html`<svg class="chart" viewBox="0 0 ${days.length * w} ${h + 22}" role="img" aria-labelledby="chart-title">
      <title id="chart-title">Calls per day this month; busiest ${busiest.day} with ${busiest.calls} calls</title>
      <line x1="0" y1="${h}" x2="${days.length * w}" y2="${h}" stroke="#5f6368" />
      ${bars}${labels}
    </svg>
    <details>
      <summary>Calls per day as a table</summary>
      <div class="table" role="region" aria-label="Calls per day" tabindex="0">
        <table>
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              <th scope="col">Calls</th>
            </tr>
          </thead>
          <tbody>
            ${days.map(
              (d) =>
                html`<tr>
                  <td>${d.day}</td>
                  <td>${d.calls}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
    </details>`;
}

export function overviewView(d: OverviewData): Safe {
  const plan = d.account.plan;
  const remaining = d.limit === null ? null : Math.max(0, d.limit - d.calls);
  const percent = d.limit ? Math.min(100, Math.round((d.calls / d.limit) * 100)) : null;
  return html`<div class="stats">
      <section class="card stat" aria-labelledby="usage-h">
        <h2 id="usage-h">Calls this month (${d.month})</h2>
        <strong id="usage-calls">${d.calls.toLocaleString('en-US')}</strong>
        ${
          d.limit === null
            ? html`<span>of an unlimited quota</span>`
            : html`<span>of ${d.limit.toLocaleString('en-US')} (${percent}% used; ${remaining!.toLocaleString('en-US')} left)</span>
                <progress max="${d.limit}" value="${Math.min(d.calls, d.limit)}" aria-label="Quota used">${percent}%</progress>`
        }
      </section>
      <section class="card stat" aria-labelledby="rate-h">
        <h2 id="rate-h">Rate limit</h2>
        <strong>${plan.rateLimitPerSecond} / s</strong><span>per API key</span>
      </section>
      <section class="card stat" aria-labelledby="plan-h">
        <h2 id="plan-h">Plan</h2>
        <strong>${plan.name}</strong>
        <span
          >${plan.webhookEventTypes === null ? 'all webhook event types' : `${plan.webhookEventTypes} webhook event types`};
          ${plan.webinarRooms === null ? 'unlimited webinar rooms' : `${plan.webinarRooms} webinar rooms`}</span
        >
      </section>
    </div>
    <section class="card" aria-labelledby="days-h">
      <h2 id="days-h">Calls per day</h2>
      <p class="muted">Calls that counted against the quota, by day (UTC). The chart is written behind the calls, a second or so late.</p>
      ${chart(d.days)}
    </section>
    <section class="card" aria-labelledby="features-h">
      <h2 id="features-h">Endpoint groups in your plan</h2>
      <ul>
        ${plan.features.map((f) => html`<li>${f}</li>`)}
      </ul>
    </section>`;
}
