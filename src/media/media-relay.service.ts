import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { DomainError } from '../common/errors';
import { JoinGate } from './join-gate';
import { MediaRoom, MediaSession, newSessionId } from './media-room';
import { PeerFactory } from './peer-factory';

/**
 * Viewers setting up their connection at once, across the process's webinars: a few handshakes at a time keep the
 * event loop free for the packets of viewers already watching (bench/media measures the burst of a webinar's start).
 */
const JOIN_SLOTS = 4;
const JOIN_MAX_WAIT_MS = 2000;
const JOIN_HOLD_MS = 5000;

export interface OpenedSession {
  session: MediaSession;
  answer: string;
}

/** A session's end, for presence: who watched, from when to when. */
export type SessionListener = (event: { webinarId: string; session: MediaSession; closedAt: Date }) => void;

/**
 * The media relay of this process: one MediaRoom per live webinar it owns. Signalling (WHIP/WHEP) opens and closes
 * sessions here; the room forwards RTP between them. Media stays in memory and on UDP, never in PostgreSQL or Redis.
 */
@Injectable()
export class MediaRelay implements OnApplicationShutdown {
  private readonly rooms = new Map<string, MediaRoom>();
  private readonly peers: PeerFactory;
  private readonly closedListeners: SessionListener[] = [];
  private readonly joins = new JoinGate(JOIN_SLOTS, JOIN_MAX_WAIT_MS, JOIN_HOLD_MS);
  private readonly maxViewers: number;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.peers = new PeerFactory(config.media);
    this.maxViewers = config.media.maxViewers;
  }

  onSessionClosed(listener: SessionListener): void {
    this.closedListeners.push(listener);
  }

  room(webinarId: string): MediaRoom | undefined {
    return this.rooms.get(webinarId);
  }

  /** Starts publishing; a live publisher is a conflict unless the caller takes over, which closes it first. */
  async publish(webinarId: string, offer: string, takeOver: boolean): Promise<OpenedSession> {
    const room = this.roomFor(webinarId);
    const current = room.publisherSession;
    if (current && current.pc.connectionState !== 'failed' && current.pc.connectionState !== 'closed') {
      if (!takeOver) throw new DomainError('webinar_already_publishing');
      await room.close(current.id);
    }
    const session: MediaSession = { id: newSessionId(), role: 'publisher', etag: newSessionId(), pc: this.peers.create() };
    room.attachPublisher(session);
    return this.negotiate(room, session, offer);
  }

  /**
   * Adds a viewer. Past MEDIA_MAX_VIEWERS the newcomer gets 503 with Retry-After: an overloaded event loop would stop
   * the stream for every viewer already watching, not only for the newest.
   */
  async play(webinarId: string, offer: string, userId: number | null): Promise<OpenedSession> {
    if (this.viewerCount() >= this.maxViewers) {
      throw new DomainError('service_unavailable', undefined, 'This live stream has as many viewers as this server can carry. Retry shortly.', {
        'Retry-After': '5',
      });
    }
    const release = await this.joins.enter();
    const room = this.roomFor(webinarId);
    const session: MediaSession = { id: newSessionId(), role: 'viewer', etag: newSessionId(), pc: this.peers.create(), viewer: { userId } };
    session.pc.connectionStateChange.subscribe((state) => {
      if (state !== 'new' && state !== 'connecting') release();
    });
    try {
      return await this.negotiate(room, session, offer, () => room.attachViewer(session));
    } catch (e) {
      release();
      throw e;
    }
  }

  /** Viewer sessions across this process's webinars. */
  viewerCount(): number {
    let count = 0;
    for (const room of this.rooms.values()) count += room.viewerCount;
    return count;
  }

  /** Closes one session of a webinar; false when it is not (or no longer) here. */
  async close(webinarId: string, sessionId: string, role: MediaSession['role']): Promise<boolean> {
    const room = this.rooms.get(webinarId);
    const session = room?.session(sessionId);
    if (!room || !session || session.role !== role) return false;
    await room.close(sessionId);
    return true;
  }

  /** The end of a webinar: every session closes and the room goes. */
  async endWebinar(webinarId: string): Promise<void> {
    const room = this.rooms.get(webinarId);
    if (!room) return;
    this.rooms.delete(webinarId);
    await room.closeAll();
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.rooms.keys()].map((id) => this.endWebinar(id)));
  }

  private roomFor(webinarId: string): MediaRoom {
    let room = this.rooms.get(webinarId);
    if (!room) {
      room = new MediaRoom(webinarId, (r, session) => {
        const closedAt = new Date();
        for (const listener of this.closedListeners) listener({ webinarId: r.webinarId, session, closedAt });
      });
      this.rooms.set(webinarId, room);
    }
    return room;
  }

  /** Applies the offer, lets the room take the session (viewers need the transceivers the offer made), and answers. */
  private async negotiate(room: MediaRoom, session: MediaSession, offer: string, attach?: () => void): Promise<OpenedSession> {
    try {
      await session.pc.setRemoteDescription({ type: 'offer', sdp: offer });
    } catch {
      await room.close(session.id);
      await session.pc.close().catch(() => undefined);
      throw new DomainError('validation_failed', [{ field: 'body', message: 'body must be an SDP offer with audio and/or video' }]);
    }
    attach?.();
    return { session, answer: await this.peers.answer(session.pc) };
  }
}
