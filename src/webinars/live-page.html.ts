import { escapeHtml } from '../common/html';
import { MEDIA_CLIENT } from './live-media.client';
import type { Webinar } from './webinars.repository';

export interface LivePageModel {
  webinar: Webinar;
  role: 'host' | 'attendee';
  embed: boolean;
  nonce: string;
  /** Host token (host view) or attendee token (personal link) the page script sends back as a header. */
  token?: string;
  attendeeName?: string | null;
  joinedOnLoad?: boolean;
  notice?: string;
  /** STUN/TURN servers for the page's RTCPeerConnection (WEBRTC_ICE_SERVERS). */
  iceServers?: unknown[];
}

/** JSON safe inside a <script> element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const STATUS_TEXT = { scheduled: 'Scheduled: not live yet', live: 'Live now', ended: 'This webinar has ended' };

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1b1f24;background:#f6f7f9}
main{max-width:880px;margin:0 auto;padding:24px}body.embed main{padding:12px}header{border-bottom:1px solid #d8dde3;margin-bottom:16px}
.brand{font-weight:600;color:#3b4a5a;margin:12px 0}h1{font-size:1.6rem;margin:0 0 4px}.meta{color:#4a5663;margin:0 0 12px}
.status{display:inline-block;padding:4px 12px;border-radius:999px;font-weight:600;background:#e4e8ee}
.status[data-status=live]{background:#c62828;color:#fff}.status[data-status=ended]{background:#37474f;color:#fff}
.stage{position:relative;margin:16px 0;aspect-ratio:16/9;display:flex;align-items:center;justify-content:center;text-align:center;
background:#11151a;color:#e6e9ee;border-radius:8px;overflow:hidden}.stage video{width:100%;height:100%;object-fit:contain;background:#11151a}
.overlay{position:absolute;inset:0;display:flex;align-items:center;justify-content:center;padding:16px;background:rgba(17,21,26,.85);font-size:1.1rem}
.overlay[hidden]{display:none}#play-button{position:absolute;background:#1a73e8;color:#fff;font-size:1.1rem}
#mute-button[aria-pressed=true],#share-button[aria-pressed=true]{background:#ffe0b2}
button{font:inherit;padding:10px 18px;border-radius:6px;border:0;cursor:pointer;margin-right:8px}button:disabled{opacity:.45;cursor:not-allowed}
#go-live{background:#c62828;color:#fff}#end-webinar{background:#37474f;color:#fff}button:focus-visible{outline:3px solid #1a73e8;outline-offset:2px}
.notice{color:#8a3b00}ul{padding-left:20px}`;

const CLIENT = `
(function () {
  var cfg = JSON.parse(document.getElementById('live-config').textContent);
  var TEXT = ${JSON.stringify(STATUS_TEXT)};
  var $ = function (id) { return document.getElementById(id); };
  var joined = cfg.joinedOnLoad, timer = null;
  function headers() {
    var h = { Accept: 'application/json' };
    if (cfg.role === 'host') h['X-Host-Token'] = cfg.token;
    return h;
  }
  function say(text) { var m = $('message'); if (m) m.textContent = text || ''; }
  function countdown(state) {
    var el = $('countdown'); if (!el) return;
    if (state.status !== 'scheduled') { el.hidden = true; return; }
    var s = Math.round((Date.parse(state.scheduled_at) - Date.now()) / 1000);
    el.hidden = false;
    if (s <= 0) { el.textContent = 'Starting soon: waiting for the host to go live.'; return; }
    var d = Math.floor(s / 86400), h = Math.floor(s % 86400 / 3600), m = Math.floor(s % 3600 / 60), sec = s % 60;
    el.textContent = 'Starts in ' + (d ? d + 'd ' : '') + (d || h ? h + 'h ' : '') + m + 'm ' + sec + 's';
  }
  function render(state) {
    cfg.state = state;
    var st = $('status');
    if (st.getAttribute('data-status') !== state.status) { st.setAttribute('data-status', state.status); st.textContent = TEXT[state.status]; }
    document.body.setAttribute('data-status', state.status);
    $('ended-message').hidden = state.status !== 'ended';
    $('stage').hidden = state.status === 'ended';
    countdown(state);
    var jc = $('joined-count'); if (jc) jc.textContent = String(state.joined_count);
    if (cfg.role === 'host') {
      $('go-live').disabled = state.status !== 'scheduled';
      $('end-webinar').disabled = state.status !== 'live';
      var list = $('attendee-list'); list.textContent = '';
      (state.attendees || []).forEach(function (a) {
        var li = document.createElement('li');
        li.textContent = a.name + (a.status === 'joined' ? ' (joined)' : ' (registered)');
        list.appendChild(li);
      });
      $('registered-count').textContent = String(state.registered_count);
    } else if (cfg.token && state.status === 'live' && !joined) {
      joined = true;
      fetch('/live/attend/' + cfg.id, { method: 'POST', headers: { Accept: 'application/json', 'X-Attendee-Token': cfg.token } })
        .then(function (r) { return r.json().then(function (b) { if (!r.ok) { say(b.error && b.error.message); } else { render(b); } }); })
        .catch(function () { joined = false; });
    }
    if (state.status === 'ended' && timer) { clearInterval(timer); timer = null; }
    if (window.liveMedia) window.liveMedia.onState(state);
  }
  function poll() {
    fetch(cfg.stateUrl, { headers: headers(), cache: 'no-store' })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (s) { if (s) render(s); })
      .catch(function () {});
  }
  function act(action, button) {
    if (action === 'end' && window.liveMedia) window.liveMedia.onState({ status: 'ended' });
    button.disabled = true; say('');
    fetch('/live/host/' + cfg.id + '/' + action, { method: 'POST', headers: headers() })
      .then(function (r) { return r.json().then(function (b) { if (r.ok) { render(b); } else { say(b.error && b.error.message); poll(); } }); })
      .catch(function () { say('Could not reach the server. Try again.'); poll(); });
  }
  window.liveHost = {
    poll: poll,
    start: function () {
      return fetch('/live/host/' + cfg.id + '/start', { method: 'POST', headers: headers() })
        .then(function (r) { return r.json().then(function (b) { if (r.ok) render(b); else throw new Error(b.error && b.error.message); }); });
    },
  };
  if (cfg.role === 'host') {
    $('go-live').addEventListener('click', function () { window.liveMedia.goLive(this); });
    $('end-webinar').addEventListener('click', function () { act('end', this); });
  }
  render(cfg.state);
  if (cfg.state.status !== 'ended') timer = setInterval(poll, 1500);
  setInterval(function () { countdown(cfg.state); }, 1000);
})();`;

function utcText(d: Date): string {
  return d.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}

/** The host sees a preview of what they publish; attendees the host's video with its sound. */
function stage(host: boolean, ended: boolean): string {
  const hidden = ended ? ' hidden' : '';
  if (host) {
    return `<section id="stage" class="stage" aria-label="Your camera preview"${hidden}><video id="preview" muted playsinline aria-label="Preview of your camera or shared screen"></video></section>`;
  }
  return `<section id="stage" class="stage" aria-label="Live video"${hidden}>
<video id="stage-video" playsinline autoplay aria-label="The host's video and audio"></video>
<p id="waiting" class="overlay">Waiting for the host to start the video…</p>
<button type="button" id="play-button" hidden>Play with sound</button></section>`;
}

/** The join, host and embed pages: one small server-rendered document, kept current by polling /live/…/state. */
export function renderLivePage(m: LivePageModel, state: object): string {
  const w = m.webinar;
  const title = escapeHtml(w.title);
  const host = m.role === 'host';
  const config = {
    id: w.id,
    role: m.role,
    token: m.token ?? null,
    joinedOnLoad: m.joinedOnLoad ?? false,
    stateUrl: host ? `/live/host/${w.id}/state` : `/live/state/${w.id}`,
    isPublic: w.isPublic,
    iceServers: m.iceServers ?? [],
    state,
  };
  const who = m.attendeeName ? `<p>Joining as <strong>${escapeHtml(m.attendeeName)}</strong></p>` : '';
  const hostPanel = host
    ? `<section aria-labelledby="host-heading"><h2 id="host-heading">Host controls</h2>
<p><button type="button" id="camera-button">Turn on camera</button><button type="button" id="go-live">Go live</button><button type="button" id="mute-button" aria-pressed="false" disabled>Mute</button><button type="button" id="share-button" aria-pressed="false" disabled>Share screen</button><button type="button" id="end-webinar">End webinar</button></p>
<p><button type="button" id="take-over" hidden>Take over publishing</button></p>
<p id="message" class="notice" role="alert"></p>
<h2 id="attendees-heading">Attendees</h2>
<p><span id="joined-count">0</span> joined · <span id="registered-count">0</span> with a seat</p>
<ul id="attendee-list" aria-labelledby="attendees-heading"></ul></section>`
    : `<p><span id="joined-count">0</span> attending</p><p id="message" class="notice" role="alert"></p>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${title} · ${host ? 'Host' : 'Live webinar'}</title>
<style nonce="${m.nonce}">${STYLE}</style></head>
<body class="${m.embed ? 'embed' : 'page'}" data-role="${m.role}" data-status="${w.status}">
<main>
${m.embed ? '' : `<header><p class="brand">Live webinar${host ? ' · host view' : ''}</p></header>`}
<h1>${title}</h1>
<p class="meta">Scheduled for <time datetime="${w.scheduledAt.toISOString()}">${utcText(w.scheduledAt)}</time> · ${w.durationMinutes} min</p>
<p id="status" class="status" role="status" aria-live="polite" data-status="${w.status}">${STATUS_TEXT[w.status]}</p>
<p id="countdown" aria-live="off"${w.status === 'scheduled' ? '' : ' hidden'}></p>
${m.notice ? `<p class="notice">${escapeHtml(m.notice)}</p>` : ''}${who}
${stage(host, w.status === 'ended')}
<p id="media-message" class="notice" role="status" aria-live="polite"></p>
<p id="ended-message"${w.status === 'ended' ? '' : ' hidden'}>This webinar has ended. Thank you for attending.</p>
${hostPanel}
</main>
<script type="application/json" id="live-config">${scriptJson(config)}</script>
<script nonce="${m.nonce}">${MEDIA_CLIENT}</script>
<script nonce="${m.nonce}">${CLIENT}</script>
</body></html>`;
}

export function renderNotFoundPage(nonce: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Webinar not found</title><style nonce="${nonce}">${STYLE}</style></head>
<body><main><h1>Webinar not found</h1><p>Check the link you were given.</p></main></body></html>`;
}
