import type { DashboardSession } from '../dashboard-auth.service';
import { form, html, Safe } from './html';

export type Section = 'overview' | 'keys' | 'webhooks' | 'deliveries' | 'requests' | 'jobs';

const NAV: Array<[Section, string, string]> = [
  ['overview', 'Overview', '/dashboard'],
  ['keys', 'API keys', '/dashboard/keys'],
  ['webhooks', 'Webhooks', '/dashboard/webhooks'],
  ['deliveries', 'Delivery log', '/dashboard/deliveries'],
  ['requests', 'Requests', '/dashboard/requests'],
  ['jobs', 'Bulk jobs', '/dashboard/jobs'],
];

/** Plain, high-contrast (WCAG AA) styles; one column under 700 px, so 360 px wide screens read without zooming. */
const CSS = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f6f7f9}
a{color:#0b57d0}a:hover{color:#063a8c}
:focus-visible{outline:3px solid #b3261e;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem}.skip:focus{left:.5rem}
header{background:#1b1f24;color:#fff;padding:.75rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center}
header a{color:#fff}header .who{font-weight:600}
.mode{border-radius:4px;padding:0 .4rem;font-size:.85rem;font-weight:700;text-transform:uppercase}
.mode.test{background:#ffd479;color:#1b1f24}.mode.live{background:#0f7b3f;color:#fff}
header form{margin-left:auto}
nav.main{background:#fff;border-bottom:1px solid #c9ced6;padding:0 1rem;display:flex;flex-wrap:wrap;gap:0 1rem}
nav.main a{display:inline-block;padding:.6rem 0;text-decoration:none;color:#1b1f24;border-bottom:3px solid transparent}
nav.main a[aria-current=page]{border-color:#0b57d0;font-weight:600}
main{max-width:72rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.5rem 0 1rem}h2{font-size:1.2rem;margin:1.5rem 0 .5rem}
section.card{background:#fff;border:1px solid #c9ced6;border-radius:6px;padding:1rem;margin:0 0 1rem}
.table{position:relative;overflow-x:auto;border:1px solid #c9ced6;border-radius:6px;background:#fff}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.45rem .6rem;border-bottom:1px solid #e1e4e8;vertical-align:top}
th{background:#eef0f3;font-weight:600;white-space:nowrap}
code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9rem}
pre{background:#f1f3f5;border:1px solid #c9ced6;padding:.75rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
.badge{display:inline-block;border-radius:4px;padding:0 .4rem;font-size:.85rem;font-weight:600;border:1px solid}
.badge.good{color:#0f5c2e;background:#e6f4ea;border-color:#0f5c2e}.badge.bad{color:#8c1d18;background:#fce8e6;border-color:#8c1d18}
.badge.neutral{color:#3c4043;background:#eef0f3;border-color:#5f6368}
.muted{color:#4d545c}
.vh{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.notice{border:2px solid #0f5c2e;background:#e6f4ea;padding:.75rem;border-radius:6px}
.error{border:2px solid #8c1d18;background:#fce8e6;padding:.75rem;border-radius:6px}
.secret{font-size:1.05rem;background:#fff8e1;border:2px dashed #8a5a00;padding:.5rem;word-break:break-all}
label{display:block;font-weight:600;margin:.5rem 0 .2rem}
input[type=text],input[type=url],input[type=datetime-local],input[type=number],select{font:inherit;padding:.4rem;border:1px solid #5f6368;border-radius:4px;width:100%;max-width:32rem;background:#fff;color:#1b1f24}
fieldset{border:1px solid #c9ced6;border-radius:6px;margin:.5rem 0;padding:.5rem .75rem}
fieldset label{display:inline-flex;gap:.3rem;font-weight:400;margin:.2rem 1rem .2rem 0}
button{font:inherit;padding:.45rem .9rem;border-radius:4px;border:1px solid #0b57d0;background:#0b57d0;color:#fff;cursor:pointer;margin:.5rem .5rem 0 0}
button.secondary{background:#fff;color:#0b57d0}button.danger{background:#b3261e;border-color:#b3261e}
.filters{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:end}.filters>div{min-width:10rem;flex:1}
.pager{margin:.75rem 0;display:flex;gap:1rem;flex-wrap:wrap}
.stats{display:grid;grid-template-columns:repeat(auto-fit,minmax(14rem,1fr));gap:1rem}
.stat strong{display:block;font-size:1.6rem}
svg.chart{width:100%;height:auto;max-height:16rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dl.facts dt{font-weight:600}dl.facts dd{margin:0;word-break:break-all}
@media (max-width:700px){main{padding:.5rem}header form{margin-left:0}}
`;

export interface PageFrame {
  title: string;
  nonce: string;
  session?: DashboardSession;
  section?: Section;
  notice?: string;
}

/** The document around every page: skip link, header (partner, mode, sign out), navigation, main. */
export function layout(frame: PageFrame, body: Safe): string {
  const s = frame.session;
  const header = s
    ? html`<header>
          <span class="who">${s.account.partnerName}</span>
          <span class="mode ${s.scope.mode}" title="Everything here is ${s.scope.mode}-mode data">${s.scope.mode} mode</span>
          ${form('/dashboard/sign-out', s.csrfToken, html`<button type="submit" class="secondary">Sign out</button>`)}
        </header>
        <nav class="main" aria-label="Dashboard">
          ${NAV.map(([key, label, href]) => html`<a href="${href}" ${key === frame.section ? html` aria-current="page"` : ''}>${label}</a>`)}
        </nav>`
    : html`<header><span class="who">Partner dashboard</span></header>`;
  const notice = frame.notice ? html`<p class="notice" role="status">${frame.notice}</p>` : '';
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${frame.title} · Partner dashboard</title>
        <style nonce="${frame.nonce}">
          ${new Safe(CSS)}
        </style>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>${header}
        <main id="main" tabindex="-1">
          <h1>${frame.title}</h1>
          ${notice}${body}
        </main>
      </body>
    </html>`.value;
}
