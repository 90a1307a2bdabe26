/**
 * The pages' media script (plain ES2017, inlined under the page's CSP nonce). The host page publishes camera and
 * microphone with WHIP, attendee and embed pages play with WHEP; both talk only to this origin (connect-src 'self').
 * It reads `cfg` and `$` from the page script and exposes `window.liveMedia.onState(state)` to it.
 */
export const MEDIA_CLIENT = `
(function () {
  var cfg = JSON.parse(document.getElementById('live-config').textContent);
  var $ = function (id) { return document.getElementById(id); };
  var RECONNECT_MS = 2000, AGAIN_MS = 300;
  var pc = null, session = null, ended = false, connecting = false, camera = null, screen = null, audioMuted = false;
  var checking = false, republishing = false;
  function note(text) { var m = $('media-message'); if (m) m.textContent = text || ''; }
  function auth() { return cfg.token ? { Authorization: 'Bearer ' + cfg.token } : {}; }
  function newPc() { return new RTCPeerConnection({ iceServers: cfg.iceServers || [] }); }
  function gathered(p) {
    return new Promise(function (resolve) {
      if (p.iceGatheringState === 'complete') return resolve();
      var done = function () { if (p.iceGatheringState === 'complete') resolve(); };
      p.addEventListener('icegatheringstatechange', done);
      setTimeout(resolve, 1500);
    });
  }
  // One WHIP/WHEP exchange: the offer with its candidates, the answer, the session URL to DELETE later.
  function negotiate(p, url) {
    return p.createOffer().then(function (o) { return p.setLocalDescription(o); }).then(function () { return gathered(p); })
      .then(function () {
        var h = auth(); h['Content-Type'] = 'application/sdp';
        return fetch(url, { method: 'POST', headers: h, body: p.localDescription.sdp });
      })
      .then(function (r) {
        if (r.status !== 201) return r.json().then(function (b) { var e = new Error(b.error ? b.error.message : 'HTTP ' + r.status); e.code = b.error && b.error.code; e.retryAfter = Number(r.headers.get('Retry-After')) || 0; throw e; });
        session = r.headers.get('Location');
        return r.text().then(function (sdp) { return p.setRemoteDescription({ type: 'answer', sdp: sdp }); });
      });
  }
  function leave() {
    if (session) { fetch(session, { method: 'DELETE', keepalive: true }).catch(function () {}); session = null; }
    if (pc) { pc.close(); pc = null; }
  }
  window.addEventListener('pagehide', leave);
  // With the state poll: is this page's session still open on the relay? Gone when the instance that held it died
  // or handed the webinar over; the page then connects again (the service routes it to the webinar's new relay).
  function checkSession(gone) {
    var s = session;
    if (!s || checking || connecting || republishing) return;
    checking = true;
    fetch(s, { cache: 'no-store' }).then(function (r) {
      checking = false;
      if (r.status === 404 && s === session) gone();
    }, function () { checking = false; });
  }

  // ---- attendee and embed pages: play ----
  var video = $('stage-video');
  function showWaiting(on) { var w = $('waiting'); if (w) w.hidden = !on; }
  function tryPlay() {
    var p = video.play();
    if (p && p.catch) p.then(function () { $('play-button').hidden = true; }).catch(function () { $('play-button').hidden = false; });
  }
  function play() {
    if (pc || connecting || ended) return;
    connecting = true;
    pc = newPc();
    var stream = new MediaStream();
    pc.addTransceiver('video', { direction: 'recvonly' });
    pc.addTransceiver('audio', { direction: 'recvonly' });
    pc.addEventListener('track', function (e) { stream.addTrack(e.track); if (video.srcObject !== stream) { video.srcObject = stream; tryPlay(); } });
    var mine = pc;
    mine.addEventListener('connectionstatechange', function () {
      if (mine !== pc) return;
      if (mine.connectionState === 'failed' || mine.connectionState === 'disconnected') reconnect();
    });
    negotiate(pc, '/live/' + cfg.id + '/whep').then(function () { connecting = false; note(''); }).catch(function (e) {
      connecting = false;
      if (pc) { pc.close(); pc = null; }
      if (e.code === 'missing_token' || e.code === 'invalid_token') { note('Open your personal link to watch this webinar.'); return; }
      if (e.code === 'webinar_ended') return;
      // A relay carrying all the viewers it can says when to come back (503 with Retry-After).
      note(e.code === 'service_unavailable' ? 'This stream has all the viewers it can take right now. Trying again…' : 'Reconnecting…');
      setTimeout(play, e.retryAfter ? e.retryAfter * 1000 : RECONNECT_MS);
    });
  }
  function reconnect() {
    if (ended) return;
    note('Reconnecting…'); showWaiting(true);
    leave();
    setTimeout(play, AGAIN_MS);
  }
  if (video) {
    video.addEventListener('playing', function () { showWaiting(false); });
    video.addEventListener('resize', function () { if (video.videoWidth > 0) showWaiting(false); });
    $('play-button').addEventListener('click', tryPlay);
  }

  // ---- host page: preview, publish, mute, share screen ----
  var preview = $('preview');
  function startCamera() {
    if (camera) return Promise.resolve(camera);
    return navigator.mediaDevices.getUserMedia({ video: true, audio: true }).then(function (s) {
      camera = s; preview.srcObject = s; preview.play().catch(function () {});
      $('camera-button').hidden = true; $('mute-button').disabled = false;
      return s;
    });
  }
  function videoSender() { return pc && pc.getSenders().filter(function (s) { return s.track ? s.track.kind === 'video' : true; })[0]; }
  function publish(takeOver) {
    pc = newPc();
    camera.getAudioTracks().forEach(function (t) { pc.addTransceiver(t, { direction: 'sendonly', streams: [camera] }); });
    // Publishing again while sharing the screen goes on with the screen.
    var shown = screen || camera;
    shown.getVideoTracks().forEach(function (t) { pc.addTransceiver(t, { direction: 'sendonly', streams: [camera] }); });
    var mine = pc;
    mine.addEventListener('connectionstatechange', function () {
      if (mine !== pc || ended) return;
      if (mine.connectionState === 'failed' || mine.connectionState === 'disconnected') republish();
      if (mine.connectionState === 'connected') { note('You are live.'); $('share-button').disabled = false; }
    });
    return negotiate(pc, '/live/' + cfg.id + '/whip' + (takeOver ? '?take_over=true' : ''));
  }
  // The connection to the relay failed, or the relay no longer has this session: publish again (taking over this
  // page's own stale session, if the relay still holds it) until it works or the webinar ends.
  function republish() {
    if (ended || republishing) return;
    republishing = true;
    note('Connection lost: publishing again…');
    leave();
    var attempt = function () {
      if (ended) { republishing = false; return; }
      publish(true).then(function () { republishing = false; }, function (e) {
        if (pc) { pc.close(); pc = null; }
        if (e.code === 'webinar_ended') { republishing = false; return; }
        setTimeout(attempt, RECONNECT_MS / 2);
      });
    };
    setTimeout(attempt, AGAIN_MS);
  }
  function goLive(button) {
    button.disabled = true; note('');
    return startCamera().then(function () {
      return publish(false).catch(function (e) {
        if (pc) { pc.close(); pc = null; }
        if (e.code !== 'webinar_already_publishing') throw e;
        note('Someone is already publishing to this webinar (another tab or device?).');
        $('take-over').hidden = false;
      });
    }, function () {
      // No camera or microphone (or permission refused): the webinar still goes live, without media.
      note('No camera or microphone available: the webinar goes live without video.');
      return window.liveHost.start();
    }).then(function () { window.liveHost.poll(); }, function (e) { note(e.message); button.disabled = false; });
  }
  function toggleMute() {
    audioMuted = !audioMuted;
    camera.getAudioTracks().forEach(function (t) { t.enabled = !audioMuted; });
    var b = $('mute-button'); b.textContent = audioMuted ? 'Unmute' : 'Mute'; b.setAttribute('aria-pressed', String(audioMuted));
  }
  // The published video switches between camera and screen with replaceTrack: attendees renegotiate nothing.
  function toggleScreen() {
    var sender = videoSender(); if (!sender) return;
    var b = $('share-button');
    if (screen) {
      screen.getTracks().forEach(function (t) { t.stop(); }); screen = null;
      sender.replaceTrack(camera.getVideoTracks()[0]); preview.srcObject = camera;
      b.textContent = 'Share screen'; b.setAttribute('aria-pressed', 'false');
      return;
    }
    navigator.mediaDevices.getDisplayMedia({ video: true }).then(function (s) {
      screen = s;
      var track = s.getVideoTracks()[0];
      track.addEventListener('ended', function () { if (screen === s) toggleScreen(); });
      sender.replaceTrack(track); preview.srcObject = s;
      b.textContent = 'Stop sharing'; b.setAttribute('aria-pressed', 'true');
    }).catch(function () { note('Screen sharing was cancelled.'); });
  }
  if (cfg.role === 'host') {
    $('camera-button').addEventListener('click', function () { startCamera().catch(function () { note('No camera or microphone available.'); }); });
    $('mute-button').addEventListener('click', toggleMute);
    $('share-button').addEventListener('click', toggleScreen);
    $('take-over').addEventListener('click', function () {
      this.hidden = true;
      publish(true).then(function () { note(''); window.liveHost.poll(); }, function (e) { note(e.message); });
    });
  }

  window.liveMedia = {
    goLive: goLive,
    onState: function (state) {
      if (state.status === 'ended') {
        if (!ended) { ended = true; leave(); if (camera) camera.getTracks().forEach(function (t) { t.stop(); }); if (video) { video.srcObject = null; } }
        return;
      }
      if (cfg.role === 'host') {
        $('share-button').disabled = !(pc && pc.connectionState === 'connected');
        checkSession(republish);
        return;
      }
      checkSession(reconnect);
      if (cfg.token || cfg.isPublic) play();
      else note('Open your personal link to watch this webinar.');
    },
  };
})();`;
