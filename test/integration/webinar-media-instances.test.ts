import { startApp, TestApp } from '../support/app';
import { createPartner, CreatedPartner } from '../support/factories';
import { LEASE_RENEW_MS, LEASE_TTL_MS } from '../../src/media/relay-ownership';
import { killAll, ServiceProcess, startApiProcess } from '../support/processes';
import { NodePublisher, NodeViewer, SignallingResult } from '../support/webrtc-client';
import { waitFor } from '../support/webhook-receiver';
import { createUser, createWebinar, hostTokenOf } from './webinar.helpers';

jest.setTimeout(180_000);

/** Each instance's relay binds its own UDP range, so an answer's candidates show which instance will carry the media. */
const base = 20_000 + Math.floor(Math.random() * 250) * 150;
const RANGES = { a: [base, base + 49], b: [base + 50, base + 99], c: [base + 100, base + 149] } as const;

type Instance = keyof typeof RANGES;

function candidatePorts(sdp: string): number[] {
  return sdp
    .split('\r\n')
    .filter((l) => l.startsWith('a=candidate:'))
    .map((l) => Number(l.split(' ')[5]));
}

function carriedBy(answer: SignallingResult): Instance | 'several' | 'none' {
  const ports = candidatePorts(answer.body);
  const carriers = (Object.keys(RANGES) as Instance[]).filter((i) => ports.some((port) => port >= RANGES[i][0] && port <= RANGES[i][1]));
  return carriers.length === 1 ? carriers[0] : carriers.length ? 'several' : 'none';
}

/**
 * API processes on one PostgreSQL and Redis (two per test: the first test kills one), as behind a load balancer that sends each request anywhere. The
 * clients are Node WebRTC peers (as OBS or GStreamer); each recovers the way the pages do: when its connection
 * drops or its session URL answers 404, it signals again, through whichever instance it reaches.
 */
describe('live media on several instances', () => {
  let t: TestApp;
  let p: CreatedPartner;
  const procs: Partial<Record<Instance, ServiceProcess>> = {};
  const open: Array<{ close(): void }> = [];
  const track = <T extends { close(): void }>(c: T): T => (open.push(c), c);

  beforeAll(async () => {
    t = await startApp({ RUN_WORKER: 'false' });
    p = await createPartner(t, { plan: 'enterprise' });
    const env = (i: Instance) => ({
      RUN_WORKER: 'false',
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}-media`,
      MEDIA_PUBLIC_IP: '127.0.0.1',
      MEDIA_UDP_PORTS: RANGES[i].join('-'),
    });
    [procs.a, procs.b, procs.c] = await Promise.all((['a', 'b', 'c'] as const).map((i) => startApiProcess(`media-${i}`, env(i), 90_000)));
  });

  afterEach(() => open.splice(0).forEach((c) => c.close()));

  afterAll(async () => {
    await Promise.all(Object.values(procs).map((proc) => proc.stop('SIGTERM', 20_000).catch(() => proc.kill())));
    await killAll();
    await t?.close();
  });

  async function attendeeToken(webinarId: string): Promise<string> {
    const user = await createUser(p, 'Katherine Johnson');
    const res = await p.http.post(`/api/webinars/${webinarId}/register`, { user_id: user.id });
    return new URL(res.body.data.join_url as string).searchParams.get('a')!;
  }

  async function lease(webinarId: string): Promise<{ internal_url: string; live: boolean } | undefined> {
    const [row] = await t.db.query(`SELECT internal_url, expires_at > now() AS live FROM media_relay_owners WHERE webinar_id = $1`, [webinarId]);
    return row;
  }

  /** What the pages do with their state poll: GET the session URL (through any instance); 404 means it is gone. */
  async function sessionGone(baseUrl: string, location: string, pc: { connectionState: string }): Promise<boolean> {
    if (pc.connectionState === 'failed' || pc.connectionState === 'disconnected') return true;
    const res = await fetch(baseUrl + location).catch(() => null);
    if (!res) return false;
    await res.arrayBuffer();
    return res.status === 404;
  }

  /** Signals until the service answers 201 (a 503 while the dead owner's lease is being taken is retried, as the pages do). */
  async function until201(what: string, connect: () => Promise<SignallingResult>): Promise<SignallingResult> {
    return waitFor(
      async () => {
        const result = await connect();
        if (result.status === 201) return result;
        if (result.status !== 503) throw new Error(`${what}: ${result.status} ${result.body}`);
        return null;
      },
      10_000,
      what,
    );
  }

  it('plays through the instance that does not own the relay, and recovers within 10 s when the owner is killed', async () => {
    const [a, b] = [procs.a!.baseUrl, procs.b!.baseUrl];
    const w = await createWebinar(p);
    const id = w.webinar_id;
    const token = await attendeeToken(id);

    // The host publishes to A: A owns the relay.
    const publisher = track(new NodePublisher());
    const published = await publisher.publish(`${a}/live/${id}/whip`, hostTokenOf(w));
    expect(published.status).toBe(201);
    expect(carriedBy(published)).toBe('a');
    expect(await lease(id)).toEqual({ internal_url: a, live: true });

    // The attendee's WHEP reaches B, which forwards it: the answer carries A's candidates and the frames arrive.
    const viewer = track(new NodeViewer());
    const played = await viewer.play(`${b}/live/${id}/whep`, token);
    expect(played.status).toBe(201);
    expect(played.location).toMatch(new RegExp(`^/live/${id}/whep/[A-Za-z0-9_-]{22}$`));
    expect(carriedBy(played)).toBe('a');
    await waitFor(() => viewer.frames >= 10, 15_000, 'frames relayed by A to the viewer signalled through B');
    // Session URLs work through either instance.
    for (const via of [a, b]) {
      const res = await fetch(via + played.location);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ connection_state: 'connected' });
    }
    const [firstSession] = await t.db.query(`SELECT session_id FROM webinar_media_sessions WHERE webinar_id = $1 AND disconnected_at IS NULL`, [id]);
    expect(firstSession).toBeDefined();

    // The owner dies.
    await procs.a!.kill();
    const killedAt = Date.now();

    // Host and viewer notice (connection state or a 404 on their session URL through B) and signal again through B.
    const republished = (async () => {
      await waitFor(() => sessionGone(b, published.location!, publisher.pc), 10_000, 'the publisher to notice');
      publisher.close();
      const again = track(new NodePublisher());
      const result = await until201('publishing again through B', () => again.publish(`${b}/live/${id}/whip?take_over=true`, hostTokenOf(w)));
      return { again, result };
    })();
    const replayed = (async () => {
      await waitFor(() => sessionGone(b, played.location!, viewer.pc), 10_000, 'the viewer to notice');
      viewer.close();
      const again = track(new NodeViewer());
      const result = await until201('playing again through B', () => again.play(`${b}/live/${id}/whep`, token));
      return { again, result };
    })();
    const [host, attendee] = await Promise.all([republished, replayed]);
    await waitFor(() => attendee.again.frames >= 10, 10_000 - (Date.now() - killedAt), 'frames from the new owner');
    const recoveredMs = Date.now() - killedAt;
    expect(recoveredMs).toBeLessThan(10_000);

    // B owns the relay now and carries the media itself.
    expect(carriedBy(host.result)).toBe('b');
    expect(carriedBy(attendee.result)).toBe('b');
    expect(await lease(id)).toEqual({ internal_url: b, live: true });
    // The session A left open ends when A was last known alive, not whenever it might have closed it.
    const [orphan] = await t.db.query(`SELECT disconnected_at FROM webinar_media_sessions WHERE session_id = $1`, [firstSession.session_id]);
    expect(orphan.disconnected_at).not.toBeNull();
    expect(orphan.disconnected_at.getTime()).toBeLessThanOrEqual(killedAt + 100);
    expect(orphan.disconnected_at.getTime()).toBeGreaterThan(killedAt - 2000);

    // Ending the webinar through the API process releases the lease, and B closes the room at its next renewal.
    expect((await p.http.post(`/api/webinars/${id}/end`)).status).toBe(200);
    await waitFor(async () => (await lease(id)) === undefined, 5000, 'the lease released');
    await waitFor(
      async () => {
        const res = await fetch(b + attendee.result.location);
        await res.arrayBuffer();
        return res.status === 404;
      },
      5000,
      'B to close the room',
    );
  });

  it('takes over from an owner that stops answering once its lease expires, and the stalled owner closes its room when it resumes', async () => {
    const [c, b] = [procs.c!.baseUrl, procs.b!.baseUrl];
    const w = await createWebinar(p);
    const id = w.webinar_id;
    const token = await attendeeToken(id);
    const publisher = track(new NodePublisher());
    const published = await publisher.publish(`${c}/live/${id}/whip`, hostTokenOf(w));
    expect(carriedBy(published)).toBe('c');
    const viewer = track(new NodeViewer());
    expect(carriedBy(await viewer.play(`${b}/live/${id}/whep`, token))).toBe('c');
    await waitFor(() => viewer.frames >= 10, 15_000, 'frames through C');

    // C freezes (a stalled machine): connections to it open but nothing answers, and its lease stops being renewed.
    procs.c!.child.kill('SIGSTOP');
    const stoppedAt = Date.now();
    try {
      const again = track(new NodePublisher());
      const republished = await until201('publishing through B', () => again.publish(`${b}/live/${id}/whip?take_over=true`, hostTokenOf(w)));
      expect(carriedBy(republished)).toBe('b');
      // The lease was taken only after it expired: C last renewed it at most one renewal before it stopped.
      expect(Date.now() - stoppedAt).toBeGreaterThan(LEASE_TTL_MS - LEASE_RENEW_MS - 500);
      const second = track(new NodeViewer());
      expect(carriedBy(await until201('playing through B', () => second.play(`${b}/live/${id}/whep`, token)))).toBe('b');
      await waitFor(() => second.frames >= 10, 10_000, 'frames from B');
      expect(Date.now() - stoppedAt).toBeLessThan(10_000);
      expect(await lease(id)).toEqual({ internal_url: b, live: true });
    } finally {
      procs.c!.child.kill('SIGCONT');
    }

    // C resumes, finds its lease gone at its next renewal and closes its own sessions; from then on it forwards to B.
    await waitFor(() => procs.c!.output.some((l) => l.includes(`lost the relay lease of ${id}`)), 10_000, 'C to notice the lost lease');
    const third = track(new NodeViewer());
    const viaC = await until201('playing through C', () => third.play(`${c}/live/${id}/whep`, token));
    expect(carriedBy(viaC)).toBe('b');
    await waitFor(() => third.frames >= 10, 10_000, 'frames from B to a viewer signalled through C');
  });
});
