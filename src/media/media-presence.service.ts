import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { Scope } from '../common/scope';
import { AttendanceService } from '../webinars/attendance.service';
import { MediaRelay } from './media-relay.service';
import type { MediaSession } from './media-room';

export interface Viewer {
  webinarId: string;
  scope: Scope;
  /** The attendee's user id; null for anonymous embed viewers (counted for peak concurrency only). */
  userId: number | null;
}

/**
 * Records viewers' media sessions for presence: a session counts from the moment its connection is established
 * (an answered offer nobody connects to watches nothing) until the relay closes it. An attendee's first connection
 * joins them (webinar.joined once). Bookkeeping failures are logged, never break the media.
 */
@Injectable()
export class MediaPresence implements OnModuleInit {
  private readonly logger = new Logger(MediaPresence.name);
  /** Sessions whose opening is recorded (or being recorded), so the close is written after it. */
  private readonly open = new Map<string, Promise<void>>();

  constructor(
    private readonly relay: MediaRelay,
    private readonly attendance: AttendanceService,
  ) {}

  onModuleInit(): void {
    this.relay.onSessionClosed(({ session, closedAt }) => this.closed(session, closedAt));
  }

  track(viewer: Viewer, session: MediaSession): void {
    const connected = () => {
      if (this.open.has(session.id)) return;
      this.open.set(session.id, this.opened(viewer, session.id, new Date()));
    };
    if (session.pc.connectionState === 'connected') connected();
    else
      session.pc.connectionStateChange.subscribe((state) => {
        if (state === 'connected') connected();
      });
  }

  private async opened(viewer: Viewer, sessionId: string, at: Date): Promise<void> {
    try {
      await this.attendance.sessionOpened(viewer.webinarId, viewer.userId, sessionId, at);
      if (viewer.userId !== null) await this.attendance.joinedByConnection(viewer.scope, viewer.webinarId, viewer.userId);
    } catch (e) {
      this.logger.error(`recording media session ${sessionId} of ${viewer.webinarId} failed: ${(e as Error).message}`);
    }
  }

  private closed(session: MediaSession, at: Date): void {
    const opened = this.open.get(session.id);
    if (!opened) return;
    this.open.delete(session.id);
    void opened
      .then(() => this.attendance.sessionClosed(session.id, at))
      .catch((e: Error) => this.logger.error(`closing media session ${session.id} failed: ${e.message}`));
  }
}
