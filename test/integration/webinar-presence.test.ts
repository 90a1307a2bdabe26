import { startApp, TestApp } from '../support/app';
import { createPartner, CreatedPartner } from '../support/factories';
import { NodePublisher, NodeViewer } from '../support/webrtc-client';
import { waitFor, WebhookReceiver } from '../support/webhook-receiver';
import { createUser, hostTokenOf, liveWebinar } from './webinar.helpers';

/**
 * Measured presence through the real relay: Node WHEP viewers' sessions give watched_seconds and connected on
 * the attendees list, the first connection joins an attendee once, and webinar.ended (delivered to a real
 * receiver) carries peak concurrency and total watch time.
 */
jest.setTimeout(90_000);

let t: TestApp;
let p: CreatedPartner;
let receiver: WebhookReceiver;
const open: Array<{ close(): void }> = [];

beforeAll(async () => {
  t = await startApp({ MEDIA_PUBLIC_IP: '127.0.0.1' });
  receiver = await new WebhookReceiver().start();
  p = await createPartner(t, { plan: 'enterprise' });
  const sub = await p.http.post('/api/connect/webhooks', {
    url: receiver.url('/presence'),
    events: ['webinar.joined', 'webinar.ended'],
    secret: 'presence-secret-0123456789abcdef',
  });
  expect(sub.status).toBe(201);
});
afterEach(() => open.splice(0).forEach((c) => c.close()));
afterAll(async () => {
  await receiver?.stop();
  await t?.close();
});

const track = <T extends { close(): void }>(c: T): T => (open.push(c), c);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Row = { user_id: number; status: string; watched_seconds: number; connected: boolean };

async function rows(webinarId: string): Promise<Map<number, Row>> {
  const res = await p.http.get(`/api/webinars/${webinarId}/attendees`);
  expect(res.status).toBe(200);
  const body = res.body as { data: { attendees: Row[] } };
  return new Map(body.data.attendees.map((r) => [r.user_id, r]));
}

type Envelope = { event: string; data: Record<string, unknown> };

function events(type: string): Envelope[] {
  return receiver
    .at('/presence')
    .map((r) => JSON.parse(r.body.toString('utf8')) as Envelope)
    .filter((e) => e.event === type);
}

async function registered(webinarId: string, name: string) {
  const user = await createUser(p, name);
  const res = await p.http.post(`/api/webinars/${webinarId}/register`, { user_id: user.id });
  expect(res.status).toBe(201);
  const body = res.body as { data: { join_url: string } };
  return { user, token: new URL(body.data.join_url).searchParams.get('a')! };
}

async function play(webinarId: string, token?: string): Promise<NodeViewer> {
  const viewer = track(new NodeViewer());
  expect((await viewer.play(`${t.baseUrl}/live/${webinarId}/whep`, token)).status).toBe(201);
  await waitFor(() => viewer.frames > 0, 15_000, 'a decoded frame');
  return viewer;
}

/** Leaves as a WHEP client does: DELETE on the session URL, then the peer connection closes. */
async function leave(viewer: NodeViewer): Promise<void> {
  const res = await fetch(`${t.baseUrl}${viewer.result!.location}`, { method: 'DELETE' });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
  viewer.close();
}

describe('presence measured from media sessions', () => {
  it('watched_seconds grows while playing and stops on leaving; joined once; webinar.ended carries peak and watch time', async () => {
    const w = await liveWebinar(p, { is_public: true, title: 'Presence' });
    expect((await track(new NodePublisher()).publish(`${t.baseUrl}/live/${w.webinar_id}/whip`, hostTokenOf(w))).status).toBe(201);
    const a = await registered(w.webinar_id, 'Ada Lovelace');
    const b = await registered(w.webinar_id, 'Barbara Liskov');

    // Before anyone plays: registered, nothing watched, not connected.
    expect((await rows(w.webinar_id)).get(a.user.id)).toMatchObject({ status: 'registered', watched_seconds: 0, connected: false });

    // A plays: her first connection joins her (webinar.joined), and her watched time grows.
    const a1 = await play(w.webinar_id, a.token);
    await waitFor(async () => (await rows(w.webinar_id)).get(a.user.id)!.connected, 5000, 'A connected');
    expect((await rows(w.webinar_id)).get(a.user.id)).toMatchObject({ status: 'joined', connected: true });
    await sleep(2500);
    const growing = (await rows(w.webinar_id)).get(a.user.id)!;
    expect(growing.connected).toBe(true);
    expect(growing.watched_seconds).toBeGreaterThanOrEqual(2);

    // B joins through the API first, then plays and reconnects: only the API join sends webinar.joined.
    expect((await p.http.post(`/api/webinars/${w.webinar_id}/join`, { user_id: b.user.id })).status).toBe(200);
    const b1 = await play(w.webinar_id, b.token);
    await leave(b1);
    await play(w.webinar_id, b.token);

    // A second tab of A and an anonymous embed viewer play at once: three distinct viewers at the peak.
    const a2 = await play(w.webinar_id, a.token);
    await play(w.webinar_id);
    await waitFor(async () => (await rows(w.webinar_id)).get(b.user.id)!.connected, 5000, 'B connected');

    // A leaves both tabs: not connected, and her watched time stops.
    await leave(a1);
    await leave(a2);
    await waitFor(async () => !(await rows(w.webinar_id)).get(a.user.id)!.connected, 5000, 'A disconnected');
    const stopped = (await rows(w.webinar_id)).get(a.user.id)!.watched_seconds;
    expect(stopped).toBeGreaterThanOrEqual(growing.watched_seconds);
    await sleep(2000);
    expect((await rows(w.webinar_id)).get(a.user.id)!.watched_seconds).toBe(stopped);

    // Ending closes B's open session; nothing grows afterwards.
    const ended = await p.http.post(`/api/webinars/${w.webinar_id}/end`);
    expect(ended.status).toBe(200);
    const after = await rows(w.webinar_id);
    expect([after.get(a.user.id)!.connected, after.get(b.user.id)!.connected]).toEqual([false, false]);
    await sleep(1500);
    const final = await rows(w.webinar_id);
    expect(final.get(b.user.id)!.watched_seconds).toBe(after.get(b.user.id)!.watched_seconds);
    const watchedSeconds = final.get(a.user.id)!.watched_seconds + final.get(b.user.id)!.watched_seconds;

    await waitFor(() => events('webinar.ended').length >= 1 && events('webinar.joined').length >= 2, 10_000, 'the webinar events');
    await sleep(500);
    const joined = events('webinar.joined').filter((e) => e.data.webinar_id === w.webinar_id);
    expect(joined.map((e) => e.data.user_id).sort()).toEqual([a.user.id, b.user.id].sort());
    const [end] = events('webinar.ended').filter((e) => e.data.webinar_id === w.webinar_id);
    expect(end.data).toMatchObject({ webinar_id: w.webinar_id, attendance_count: 2, peak_concurrent_attendees: 3 });
    expect(end.data.total_watch_minutes).toBeGreaterThan(0);
    // The list floors each attendee's seconds; the event rounds the exact sum to the hundredth of a minute.
    expect(Math.abs((end.data.total_watch_minutes as number) - watchedSeconds / 60)).toBeLessThan(0.05);
  });
});
