import { startApp, TestApp } from '../support/app';
import { createPartner, CreatedPartner } from '../support/factories';
import { createUser, createWebinar, hostTokenOf, liveWebinar, webinarEvents } from './webinar.helpers';

let t: TestApp;
let p: CreatedPartner;
beforeAll(async () => {
  t = await startApp();
  p = await createPartner(t, { plan: 'enterprise' });
});
afterAll(() => t.close());

const local = (url: string) => url.replace('http://localhost:3999', '');
const page = (url: string) => t.http.get(local(url), { headers: { Accept: 'text/html' } });

async function personalLink(w: { webinar_id: string }, name = 'Ada Lovelace') {
  const u = await createUser(p, name);
  const res = await p.http.post(`/api/webinars/${w.webinar_id}/register`, { user_id: u.id });
  return { user: u, url: res.body.data.join_url as string, token: new URL(res.body.data.join_url).searchParams.get('a')! };
}

describe('host and attendee pages', () => {
  it('shows the host view with controls for a valid host token, without framing or referrers', async () => {
    const w = await createWebinar(p);
    const res = await page(w.host_join_url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toContain('Go live');
    expect(res.text).toContain('End webinar');
    // The host previews the camera and has the media controls; nothing says "placeholder" any more.
    expect(res.text).toContain('<video id="preview" muted playsinline');
    for (const label of ['Turn on camera', 'Mute', 'Share screen']) expect(res.text).toContain(label);
    expect(res.text).not.toContain('placeholder');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it("shows the attendee view for a wrong, malformed or other webinar's host token", async () => {
    const w = await createWebinar(p);
    const other = await createWebinar(p);
    const token = hostTokenOf(w);
    const wrong = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    for (const t of [wrong, 'short', hostTokenOf(other), '']) {
      const res = await page(`${w.attendee_join_url}&t=${encodeURIComponent(t)}`);
      expect(res.status).toBe(200);
      expect(res.text).not.toContain('Go live');
      expect(res.text).toContain('Scheduled: not live yet');
    }
  });

  it('escapes the title', async () => {
    const w = await createWebinar(p, { title: '<script>alert("x")</script> & "quotes"' });
    const res = await page(w.attendee_join_url);
    expect(res.text).not.toContain('<script>alert');
    expect(res.text).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &quot;quotes&quot;');
  });

  it('answers 404 for unknown webinars', async () => {
    expect((await page('/live/join?wbn=wbn_0000000000000000000000')).status).toBe(404);
    expect((await page('/live/join')).status).toBe(404);
    expect((await page('/live/embed/nope')).status).toBe(404);
  });

  it('says the webinar has ended', async () => {
    const w = await liveWebinar(p);
    await p.http.post(`/api/webinars/${w.webinar_id}/end`);
    const res = await page(w.attendee_join_url);
    expect(res.text).toContain('This webinar has ended');
  });
});

describe('host actions through the page endpoints', () => {
  it('go live and end with the host token, each recording its event', async () => {
    const w = await createWebinar(p);
    const headers = { 'X-Host-Token': hostTokenOf(w) };
    const start = await t.http.post(`/live/host/${w.webinar_id}/start`, undefined, { headers });
    expect(start.status).toBe(200);
    expect(start.body).toMatchObject({ webinar_id: w.webinar_id, status: 'live', joined_count: 0, attendees: [] });
    expect(await webinarEvents(t, w.webinar_id, 'webinar.started')).toHaveLength(1);
    const again = await t.http.post(`/live/host/${w.webinar_id}/start`, undefined, { headers });
    expect([again.status, again.body.error.code]).toEqual([409, 'webinar_already_live']);
    const end = await t.http.post(`/live/host/${w.webinar_id}/end`, undefined, { headers });
    expect(end.body.status).toBe('ended');
    expect(await webinarEvents(t, w.webinar_id, 'webinar.ended')).toHaveLength(1);
  });

  it('refuses a missing or wrong host token with 404 and changes nothing', async () => {
    const w = await createWebinar(p);
    const other = await createWebinar(p);
    for (const headers of [{}, { 'X-Host-Token': hostTokenOf(other) }, { 'X-Host-Token': 'x'.repeat(40) }] as Record<string, string>[]) {
      const res = await t.http.post(`/live/host/${w.webinar_id}/start`, undefined, { headers });
      expect([res.status, res.body.error.code]).toEqual([404, 'webinar_not_found']);
      expect((await t.http.get(`/live/host/${w.webinar_id}/state`, { headers })).status).toBe(404);
    }
    expect((await p.http.get(`/api/webinars/${w.webinar_id}`)).body.data.status).toBe('scheduled');
  });

  it('gives the host the attendee list and the public state only counts', async () => {
    const w = await liveWebinar(p);
    const u = await createUser(p, 'Katherine Johnson');
    await p.http.post(`/api/webinars/${w.webinar_id}/join`, { user_id: u.id });
    const host = await t.http.get(`/live/host/${w.webinar_id}/state`, { headers: { 'X-Host-Token': hostTokenOf(w) } });
    expect(host.body).toMatchObject({ joined_count: 1, registered_count: 1, attendees: [{ name: 'Katherine Johnson', status: 'joined' }] });
    const open = await t.http.get(`/live/state/${w.webinar_id}`);
    expect(open.body).toEqual({
      webinar_id: w.webinar_id,
      status: 'live',
      scheduled_at: expect.any(String),
      started_at: expect.any(String),
      ended_at: null,
      joined_count: 1,
    });
  });
});

describe('personal join links', () => {
  it('records the join (and webinar.joined) when opened while live', async () => {
    const w = await createWebinar(p);
    const { user, url } = await personalLink(w, 'Hedy Lamarr');
    const before = await page(url);
    expect(before.text).toContain('Hedy Lamarr');
    expect(await webinarEvents(t, w.webinar_id, 'webinar.joined')).toHaveLength(0);
    await p.http.post(`/api/webinars/${w.webinar_id}/start`);
    await page(url);
    const events = await webinarEvents(t, w.webinar_id, 'webinar.joined');
    expect(events.map((e) => e.payload)).toEqual([
      {
        webinar_id: w.webinar_id,
        user_id: user.id,
        external_user_id: user.external_user_id,
        name: 'Hedy Lamarr',
        email: user.email,
        joined_at: expect.any(String),
      },
    ]);
    const attendees = (await p.http.get(`/api/webinars/${w.webinar_id}/attendees`)).body.data.attendees;
    expect(attendees[0]).toMatchObject({ user_id: user.id, status: 'joined' });
  });

  it('joins through the page endpoint a page opened before going live', async () => {
    const w = await createWebinar(p);
    const { token } = await personalLink(w);
    const early = await t.http.post(`/live/attend/${w.webinar_id}`, undefined, { headers: { 'X-Attendee-Token': token } });
    expect([early.status, early.body.error.code]).toEqual([409, 'webinar_not_live']);
    await p.http.post(`/api/webinars/${w.webinar_id}/start`);
    const res = await t.http.post(`/live/attend/${w.webinar_id}`, undefined, { headers: { 'X-Attendee-Token': token } });
    expect(res.body).toMatchObject({ status: 'live', joined_count: 1 });
  });

  it("ignores an invalid or another webinar's attendee token", async () => {
    const w = await liveWebinar(p);
    const other = await createWebinar(p);
    const { token } = await personalLink(other);
    for (const a of [token, 'A'.repeat(43)]) {
      const res = await page(`${w.attendee_join_url}&a=${a}`);
      expect(res.status).toBe(200);
      expect(res.text).toContain('This personal link is not valid');
      const api = await t.http.post(`/live/attend/${w.webinar_id}`, undefined, { headers: { 'X-Attendee-Token': a } });
      expect(api.status).toBe(404);
    }
    expect(await webinarEvents(t, w.webinar_id, 'webinar.joined')).toHaveLength(0);
  });
});

describe('embed page', () => {
  it("may be framed by the service and the partner's allowed origins only", async () => {
    const partner = await createPartner(t);
    await t.db.query(`UPDATE partners SET allowed_origins = ARRAY['https://learn.acme.example', 'https://app.acme.example:8443'] WHERE id = $1`, [
      partner.partnerId,
    ]);
    const w = await createWebinar(partner);
    const res = await page(w.embed_url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'self' https://learn.acme.example https://app.acme.example:8443");
    expect(res.text).not.toContain('class="brand"');
    expect(res.text).toContain('<video id="stage-video" playsinline autoplay');
    expect(res.text).toContain('Waiting for the host to start the video');
  });
});
