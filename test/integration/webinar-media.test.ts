import { MediaRelay } from '../../src/media/media-relay.service';
import { startApp, TestApp } from '../support/app';
import { createPartner, CreatedPartner } from '../support/factories';
import { NodePublisher, NodeViewer, signal } from '../support/webrtc-client';
import { createUser, createWebinar, hostTokenOf, webinarEvents } from './webinar.helpers';

jest.setTimeout(60_000);

type ErrorBody = { error: { code: string } };

let t: TestApp;
let p: CreatedPartner;
const open: Array<{ close(): void }> = [];

beforeAll(async () => {
  t = await startApp({ MEDIA_PUBLIC_IP: '127.0.0.1' });
  p = await createPartner(t, { plan: 'enterprise' });
});
afterEach(() => open.splice(0).forEach((c) => c.close()));
afterAll(async () => {
  await t?.close();
});

const relay = () => t.app.get(MediaRelay);
const track = <T extends { close(): void }>(c: T): T => (open.push(c), c);

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function attendeeToken(webinarId: string): Promise<string> {
  const user = await createUser(p, 'Grace Hopper');
  const res = await p.http.post(`/api/webinars/${webinarId}/register`, { user_id: user.id });
  return new URL(res.body.data.join_url as string).searchParams.get('a')!;
}

/** A valid offer to probe the refusals with (nothing is ever connected). */
async function offerOnly(): Promise<string> {
  const v = track(new NodeViewer());
  await v.pc.setLocalDescription(await v.pc.createOffer());
  return v.pc.localDescription!.sdp;
}

describe('WHIP publish and WHEP play (Node clients, as OBS or GStreamer)', () => {
  it('a Node WHIP client publishes, a scheduled webinar goes live, and a Node WHEP client decodes the frames', async () => {
    const w = await createWebinar(p);
    const token = await attendeeToken(w.webinar_id);

    // Playing before the host publishes succeeds; media starts when the host does.
    const viewer = track(new NodeViewer());
    const played = await viewer.play(`${t.baseUrl}/live/${w.webinar_id}/whep`, token);
    expect(played).toMatchObject({ status: 201, contentType: expect.stringMatching(/^application\/sdp/) });
    expect(played.location).toMatch(new RegExp(`^/live/${w.webinar_id}/whep/[A-Za-z0-9_-]{22}$`));
    expect(played.body).toMatch(/^v=0/);

    const publisher = track(new NodePublisher());
    const published = await publisher.publish(`${t.baseUrl}/live/${w.webinar_id}/whip`, hostTokenOf(w));
    expect(published).toMatchObject({ status: 201, etag: expect.stringMatching(/^"[^"]+"$/) });
    expect(published.location).toMatch(new RegExp(`^/live/${w.webinar_id}/whip/`));
    expect(published.body).toContain('a=candidate:');

    expect((await p.http.get(`/api/webinars/${w.webinar_id}`)).body.data.status).toBe('live');
    expect(await webinarEvents(t, w.webinar_id, 'webinar.started')).toHaveLength(1);

    await waitFor('25 decoded frames', () => viewer.frames >= 25);
    expect(viewer.width).toBe(320);
    expect(viewer.audioTrack).toBe(true);

    // A late joiner decodes at once: the relay asks the publisher for a key frame.
    const late = track(new NodeViewer());
    const joinedAt = Date.now();
    expect((await late.play(`${t.baseUrl}/live/${w.webinar_id}/whep`, token)).status).toBe(201);
    await waitFor('the late viewer’s first frame', () => late.frames > 0, 5000);
    expect(Date.now() - joinedAt).toBeLessThan(3000);

    // GET on a session URL says whether it is open (the pages ask with their state poll); a WHEP session is not a WHIP one.
    const open = await fetch(`${t.baseUrl}${late.result!.location}`);
    expect(open.status).toBe(200);
    expect(await open.json()).toEqual({ session_id: late.result!.location!.split('/').pop(), connection_state: 'connected' });
    const wrongRole = await fetch(`${t.baseUrl}${late.result!.location!.replace('/whep/', '/whip/')}`);
    expect(wrongRole.status).toBe(404);
    await wrongRole.arrayBuffer();

    // DELETE on the session URL leaves; a second DELETE finds nothing, and neither does GET.
    const del = await fetch(`${t.baseUrl}${late.result!.location}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    await del.arrayBuffer();
    const again = await fetch(`${t.baseUrl}${late.result!.location}`, { method: 'DELETE' });
    expect(again.status).toBe(404);
    expect(((await again.json()) as ErrorBody).error.code).toBe('media_session_not_found');
    const gone = await fetch(`${t.baseUrl}${late.result!.location}`);
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as ErrorBody).error.code).toBe('media_session_not_found');

    // Trickle ICE is not offered: 405 with Allow.
    const patch = await fetch(`${t.baseUrl}${published.location}`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/trickle-ice-sdpfrag' },
      body: 'a=end-of-candidates\r\n',
    });
    expect(patch.status).toBe(405);
    expect(patch.headers.get('allow')).toBe('DELETE, GET, HEAD');
    expect(((await patch.json()) as ErrorBody).error.code).toBe('method_not_allowed');

    // Ending the webinar closes every session within 2 s; playing it afterwards is 409.
    const endedAt = Date.now();
    expect((await p.http.post(`/api/webinars/${w.webinar_id}/end`)).status).toBe(200);
    await waitFor('the sessions to close', () => relay().room(w.webinar_id) === undefined, 2000);
    expect(Date.now() - endedAt).toBeLessThan(2000);
    // The relay forwards nothing more: the viewer's picture stops.
    await new Promise((r) => setTimeout(r, 300));
    const frozen = viewer.frames;
    await new Promise((r) => setTimeout(r, 700));
    expect(viewer.frames).toBe(frozen);
    const after = await signal(`${t.baseUrl}/live/${w.webinar_id}/whep`, await offerOnly(), token);
    expect(after.status).toBe(409);
    expect(JSON.parse(after.body).error.code).toBe('webinar_ended');
    const republish = await signal(`${t.baseUrl}/live/${w.webinar_id}/whip`, await offerOnly(), hostTokenOf(w));
    expect(republish.status).toBe(409);
    expect(JSON.parse(republish.body).error.code).toBe('webinar_ended');
  });

  it('refuses: attendee token publishing (403), no token on a private webinar (401), a second publisher (409), non-SDP bodies (415)', async () => {
    const w = await createWebinar(p);
    const token = await attendeeToken(w.webinar_id);
    const offer = await offerOnly();
    const whip = `${t.baseUrl}/live/${w.webinar_id}/whip`;
    const whep = `${t.baseUrl}/live/${w.webinar_id}/whep`;
    const errorOf = (r: { status: number; body: string }) => [r.status, JSON.parse(r.body).error.code];

    expect(errorOf(await signal(whip, offer, token))).toEqual([403, 'host_token_required']);
    expect(errorOf(await signal(whip, offer))).toEqual([401, 'missing_token']);
    expect(errorOf(await signal(whip, offer, 'x'.repeat(40)))).toEqual([401, 'invalid_token']);
    expect(errorOf(await signal(whep, offer))).toEqual([401, 'missing_token']);
    expect(errorOf(await signal(whep, offer, 'y'.repeat(40)))).toEqual([401, 'invalid_token']);
    expect(errorOf(await signal(`${t.baseUrl}/live/wbn_0000000000000000000/whep`, offer, token))).toEqual([404, 'webinar_not_found']);
    expect(errorOf(await signal(whep, 'hello', token))).toEqual([400, 'validation_failed']);
    // Refusals before the start leave the webinar scheduled.
    expect((await p.http.get(`/api/webinars/${w.webinar_id}`)).body.data.status).toBe('scheduled');

    const json = await fetch(whip, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${hostTokenOf(w)}` }, body: '{}' });
    expect(json.status).toBe(415);
    expect(((await json.json()) as ErrorBody).error.code).toBe('unsupported_media_type');

    const first = track(new NodePublisher());
    expect((await first.publish(whip, hostTokenOf(w))).status).toBe(201);
    const second = track(new NodePublisher());
    const refused = await second.publish(whip, hostTokenOf(w));
    expect(errorOf(refused)).toEqual([409, 'webinar_already_publishing']);
    // The host page's "take over" ends the first session and publishes the new one.
    const takeOver = track(new NodePublisher());
    expect((await takeOver.publish(`${whip}?take_over=true`, hostTokenOf(w))).status).toBe(201);
    const room = relay().room(w.webinar_id)!;
    expect(room.publisherSession?.id).toBe(takeOver.result!.location!.split('/').pop());
    expect(room.sessions()).toHaveLength(1);
  });

  it('a public webinar plays without a token', async () => {
    const w = await createWebinar(p, { is_public: true });
    const viewer = track(new NodeViewer());
    expect((await viewer.play(`${t.baseUrl}/live/${w.webinar_id}/whep`)).status).toBe(201);
    const publisher = track(new NodePublisher());
    expect((await publisher.publish(`${t.baseUrl}/live/${w.webinar_id}/whip`, hostTokenOf(w))).status).toBe(201);
    await waitFor('frames on the anonymous viewer', () => viewer.frames >= 10);
  });
});

describe('what one relay carries (MEDIA_MAX_VIEWERS)', () => {
  let small: TestApp;
  beforeAll(async () => {
    small = await startApp({ MEDIA_PUBLIC_IP: '127.0.0.1', MEDIA_MAX_VIEWERS: '2' });
  });
  afterAll(async () => {
    await small?.close();
  });

  it('refuses a viewer past the cap with 503 and Retry-After, while those watching keep their picture', async () => {
    const q = await createPartner(small, { plan: 'enterprise' });
    const w = await createWebinar(q, { is_public: true });
    const whep = `${small.baseUrl}/live/${w.webinar_id}/whep`;
    const publisher = track(new NodePublisher());
    expect((await publisher.publish(`${small.baseUrl}/live/${w.webinar_id}/whip`, hostTokenOf(w))).status).toBe(201);
    const [first, second] = [track(new NodeViewer()), track(new NodeViewer())];
    expect((await first.play(whep)).status).toBe(201);
    expect((await second.play(whep)).status).toBe(201);

    const third = await signal(whep, await offerOnly());
    expect(third.status).toBe(503);
    expect(third.retryAfter).toBe('5');
    expect((JSON.parse(third.body) as ErrorBody).error.code).toBe('service_unavailable');

    const before = first.frames;
    await waitFor('frames still reaching the first viewer', () => first.frames >= before + 10);
    // A viewer leaving frees its place.
    const location = second.result!.location!;
    const left = await fetch(`${small.baseUrl}${location}`, { method: 'DELETE' });
    await left.arrayBuffer();
    expect(left.status).toBe(200);
    const again = track(new NodeViewer());
    expect((await again.play(whep)).status).toBe(201);
  });
});
