import { randomBytes } from 'node:crypto';
import type { MediaStreamTrack, RTCPeerConnection, RTCRtpReceiver, RTCRtpSender, RtpPacket } from 'werift';
import { werift } from './werift';

export type MediaKind = 'audio' | 'video';
const KINDS: MediaKind[] = ['audio', 'video'];

/** How often the publisher is asked for a key frame while a viewer still waits for one. */
const KEY_FRAME_RETRY_MS = 1000;
/** Key frame requests reach the publisher at most this often: joiners and viewers' own picture-loss reports within it share one. */
const PLI_MIN_INTERVAL_MS = 300;

export interface MediaSession {
  id: string;
  role: 'publisher' | 'viewer';
  /** Bumped whenever the session's SDP changes; sent as the ETag. */
  etag: string;
  pc: RTCPeerConnection;
  /** Who watches (an attendee's user id), null for the host and anonymous embed viewers. */
  viewer?: { userId: number | null };
}

interface ViewerState {
  session: MediaSession;
  senders: Partial<Record<MediaKind, RTCRtpSender>>;
  waitingForKeyFrame: boolean;
}

/** Rewrites sequence numbers and timestamps so a viewer's stream stays continuous when the publisher changes. */
class OutputClock {
  private lastSeq: number | null = null;
  private lastTs: number | null = null;
  private seqOffset = 0;
  private tsOffset = 0;
  private sourceSsrc: number | null = null;

  apply(packet: RtpPacket, frameGap: number): void {
    const h = packet.header;
    if (h.ssrc !== this.sourceSsrc) {
      this.sourceSsrc = h.ssrc;
      this.seqOffset = this.lastSeq === null ? 0 : (this.lastSeq + 1 - h.sequenceNumber) & 0xffff;
      this.tsOffset = this.lastTs === null ? 0 : (this.lastTs + frameGap - h.timestamp) >>> 0;
    }
    h.sequenceNumber = (h.sequenceNumber + this.seqOffset) & 0xffff;
    h.timestamp = (h.timestamp + this.tsOffset) >>> 0;
    this.lastSeq = h.sequenceNumber;
    this.lastTs = h.timestamp;
  }
}

export const newSessionId = (): string => randomBytes(16).toString('base64url');

/**
 * One webinar's selective forwarding unit: at most one publisher, any number of viewers. Every RTP packet of the
 * publisher goes to each connected viewer's sender with a header of its own over the shared payload (each sender
 * rewrites the header it is given and keeps the packet for retransmissions). Nothing is decoded or stored.
 */
export class MediaRoom {
  private publisher: { session: MediaSession; receivers: Partial<Record<MediaKind, { receiver: RTCRtpReceiver; track: MediaStreamTrack }>> } | null = null;
  private readonly viewers = new Map<string, ViewerState>();
  private readonly clocks: Record<MediaKind, OutputClock> = { audio: new OutputClock(), video: new OutputClock() };
  private keyFrameTimer: NodeJS.Timeout | null = null;
  private lastPli = 0;
  private pliPending: NodeJS.Timeout | null = null;
  /** Counters for the metrics. */
  readonly stats = { packetsIn: 0, packetsOut: 0 };

  constructor(
    readonly webinarId: string,
    private readonly onSessionClosed: (room: MediaRoom, session: MediaSession) => void,
  ) {}

  get publisherSession(): MediaSession | null {
    return this.publisher?.session ?? null;
  }

  get viewerCount(): number {
    return this.viewers.size;
  }

  session(id: string): MediaSession | undefined {
    if (this.publisher?.session.id === id) return this.publisher.session;
    return this.viewers.get(id)?.session;
  }

  sessions(): MediaSession[] {
    return [...(this.publisher ? [this.publisher.session] : []), ...[...this.viewers.values()].map((v) => v.session)];
  }

  /** Takes a publisher before its offer is applied: its incoming tracks feed every viewer from now on. */
  attachPublisher(session: MediaSession): void {
    const state = { session, receivers: {} as NonNullable<typeof this.publisher>['receivers'] };
    this.publisher = state;
    session.pc.onTrack.subscribe((track) => {
      const kind = track.kind as MediaKind;
      const receiver = session.pc.getTransceivers().find((t) => t.kind === kind)?.receiver;
      if (!KINDS.includes(kind) || !receiver) return;
      state.receivers[kind] = { receiver, track };
      track.onReceiveRtp.subscribe((rtp) => {
        if (this.publisher === state) this.forward(kind, rtp);
      });
      if (kind === 'video') this.requestKeyFrame(true);
    });
    this.watchConnection(session);
  }

  /** Takes a viewer whose remote description is set: a send-only sender per kind, fed with the publisher's packets. */
  attachViewer(session: MediaSession): void {
    const state: ViewerState = { session, senders: {}, waitingForKeyFrame: true };
    for (const t of session.pc.getTransceivers()) {
      const kind = t.kind as MediaKind;
      if (!KINDS.includes(kind) || state.senders[kind]) continue;
      t.setDirection('sendonly');
      state.senders[kind] = t.sender;
      t.sender.onPictureLossIndication.subscribe(() => this.requestKeyFrame(false));
    }
    this.viewers.set(session.id, state);
    this.watchConnection(session);
    session.pc.connectionStateChange.subscribe((s) => {
      if (s === 'connected') this.requestKeyFrame(false);
    });
    this.ensureKeyFrameTimer();
  }

  /** Closes one session (DELETE, a failed connection, the end of the webinar). */
  async close(id: string): Promise<void> {
    const session = this.session(id);
    if (!session) return;
    if (this.publisher?.session.id === id) this.publisher = null;
    this.viewers.delete(id);
    this.onSessionClosed(this, session);
    await session.pc.close().catch(() => undefined);
  }

  async closeAll(): Promise<void> {
    if (this.keyFrameTimer) clearInterval(this.keyFrameTimer);
    if (this.pliPending) clearTimeout(this.pliPending);
    this.keyFrameTimer = null;
    this.pliPending = null;
    await Promise.all(this.sessions().map((s) => this.close(s.id)));
  }

  private watchConnection(session: MediaSession): void {
    session.pc.connectionStateChange.subscribe((s) => {
      if (s === 'failed' || s === 'closed') void this.close(session.id);
    });
  }

  private forward(kind: MediaKind, packet: RtpPacket): void {
    this.stats.packetsIn++;
    this.clocks[kind].apply(packet, kind === 'video' ? 3000 : 960);
    const keyFrame = kind === 'video' && isVp8KeyFrameStart(packet);
    const { header, payload } = packet;
    for (const viewer of this.viewers.values()) {
      const sender = viewer.senders[kind];
      if (!sender || viewer.session.pc.connectionState !== 'connected') continue;
      if (kind === 'video') {
        if (keyFrame) viewer.waitingForKeyFrame = false;
        // A decoder fed from the middle of a frame sequence only shows garbage; wait for the next key frame.
        else if (viewer.waitingForKeyFrame) continue;
      }
      this.stats.packetsOut++;
      // The publisher's header extensions are left out: their ids were negotiated with the publisher, not this viewer,
      // whose sender adds the ones it negotiated.
      const { RtpHeader, RtpPacket } = werift();
      sender.sendRtp(new RtpPacket(new RtpHeader({ ...header, extension: false, extensions: [] }), payload)).catch(() => undefined);
    }
  }

  private ensureKeyFrameTimer(): void {
    if (this.keyFrameTimer) return;
    this.keyFrameTimer = setInterval(() => {
      if ([...this.viewers.values()].some((v) => v.waitingForKeyFrame && v.session.pc.connectionState === 'connected')) this.requestKeyFrame(true);
    }, KEY_FRAME_RETRY_MS);
    this.keyFrameTimer.unref();
  }

  /**
   * RTCP PLI to the publisher's video source: at once when forced (a new publisher, the retry timer) or when none
   * went out within PLI_MIN_INTERVAL_MS, otherwise once at the end of that interval for every request made within it,
   * so a burst of joiners costs the publisher one key frame, not one each.
   */
  private requestKeyFrame(force: boolean): void {
    const wait = this.lastPli + PLI_MIN_INTERVAL_MS - Date.now();
    if (!force && wait > 0) {
      if (!this.pliPending) {
        this.pliPending = setTimeout(() => {
          this.pliPending = null;
          this.requestKeyFrame(true);
        }, wait);
        this.pliPending.unref();
      }
      return;
    }
    const video = this.publisher?.receivers.video;
    if (!video) return;
    this.lastPli = Date.now();
    if (video.track.ssrc !== undefined) video.receiver.sendRtcpPLI(video.track.ssrc).catch(() => undefined);
  }
}

/** The first packet of a VP8 key frame (start of partition 0 with the inverse key-frame bit clear). */
function isVp8KeyFrameStart(packet: RtpPacket): boolean {
  try {
    const vp8 = werift().Vp8RtpPayload.deSerialize(packet.payload);
    return vp8.isKeyframe;
  } catch {
    return false;
  }
}
