import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors';
import { offsetOf } from '../common/pagination';
import { Scope } from '../common/scope';
import { Tx, TransactionRunner } from '../events/transaction-runner';
import { UsersService, UserSnapshot } from '../users/users.service';
import { AttendanceDto, AttendeeListDto, ListAttendeesQuery } from './dto/attendee.dto';
import { toAttendeeView, WebinarLinks } from './webinar.mapper';
import { stateConflict } from './webinar-state';
import { IssuedAttendeeToken, sha256Hex, WebinarTokens } from './webinar-tokens';
import { WebinarsRepository } from './webinars.repository';
import { WebinarsService } from './webinars.service';
import { PresenceRepository } from './presence.repository';
import type { WebinarStatus } from './webinar.entity';

export interface UserRef {
  user_id?: number;
  external_user_id?: string;
}

/**
 * Registration and joining. A seat is one attendee row (registered or joined); it is taken by a conditional
 * UPDATE of the webinar row that also checks the state, so capacity and state hold under any concurrency.
 */
@Injectable()
export class AttendanceService {
  constructor(
    private readonly repo: WebinarsRepository,
    private readonly tx: TransactionRunner,
    private readonly users: UsersService,
    private readonly webinars: WebinarsService,
    private readonly links: WebinarLinks,
    private readonly tokens: WebinarTokens,
    private readonly presence: PresenceRepository,
  ) {}

  /** Registers a user (scheduled or live webinars). Registering again is harmless: same seat, same personal link. */
  async register(scope: Scope, webinarId: string, ref: UserRef): Promise<{ created: boolean; attendance: AttendanceDto }> {
    return this.tx.run(async (tx) => {
      const { user, created, token } = await this.takeSeat(tx, scope, webinarId, ref, ['scheduled', 'live'], 'register');
      return { created, attendance: await this.view(tx, scope, webinarId, user, token) };
    });
  }

  /**
   * Joins a live webinar (registering on the way if needed). Only the attendee's first join, here or through the
   * page's media connection, emits webinar.joined; joined_at keeps that time.
   */
  async join(scope: Scope, webinarId: string, ref: UserRef): Promise<AttendanceDto> {
    return this.tx.run(async (tx) => {
      const { user, token } = await this.takeSeat(tx, scope, webinarId, ref, ['live'], 'join');
      // takeSeat has just seen the webinar live under its row lock, so the seat is marked.
      await this.markJoined(tx, scope, webinarId, user);
      return this.view(tx, scope, webinarId, user, token);
    });
  }

  /** An attendee's media connection (WHEP) to a live webinar joins them, as the API's join would. */
  async joinedByConnection(scope: Scope, webinarId: string, userId: number): Promise<void> {
    await this.tx.run(async (tx) => {
      await this.markJoined(tx, scope, webinarId, await this.users.snapshot(scope, userId, tx.em));
    });
  }

  /** A viewer's media session connected (user null: an anonymous embed viewer). */
  async sessionOpened(webinarId: string, userId: number | null, sessionId: string, at: Date): Promise<void> {
    await this.presence.opened(webinarId, userId, sessionId, at);
  }

  async sessionClosed(sessionId: string, at: Date): Promise<void> {
    await this.presence.closed(sessionId, at);
  }

  /** The relay that held a webinar's sessions died: those still open end at `at`, when it was last known alive. */
  async sessionsOrphaned(webinarId: string, at: Date): Promise<void> {
    await this.tx.run((tx) => this.presence.closeAll(tx.em, webinarId, at));
  }

  private async markJoined(tx: Tx, scope: Scope, webinarId: string, user: UserSnapshot): Promise<void> {
    const joined = await this.repo.markJoined(tx.em, webinarId, user.id);
    if (!joined?.first) return;
    await tx.record(
      scope,
      'webinar.joined',
      {
        webinar_id: webinarId,
        user_id: user.id,
        external_user_id: user.externalUserId,
        name: user.name,
        email: user.email,
        joined_at: joined.at.toISOString(),
      },
      joined.at,
    );
  }

  /** The join behind a personal link (`&a=<token>`): null when the token does not belong to this webinar. */
  async joinWithToken(webinarId: string, token: string): Promise<AttendanceDto | null> {
    const seat = await this.repo.attendeeByTokenHash(webinarId, sha256Hex(token));
    if (!seat) return null;
    return this.join(seat.scope, webinarId, { user_id: seat.userId });
  }

  async list(scope: Scope, webinarId: string, query: ListAttendeesQuery): Promise<AttendeeListDto> {
    await this.webinars.find(scope, webinarId);
    const [rows, total] = await this.repo.attendeePage(scope, webinarId, offsetOf(query), query.limit);
    const users = await this.users.snapshots(
      scope,
      rows.map((a) => a.userId),
    );
    // A seat's learner is in the seat's scope (registration resolved it there), so every row finds its user.
    const presence = await this.presence.byAttendee(
      webinarId,
      rows.map((a) => a.userId),
    );
    const attendees = rows.map((a) => ({
      ...toAttendeeView(a, users.get(a.userId)!),
      watched_seconds: presence.get(a.userId)?.watchedSeconds ?? 0,
      connected: presence.get(a.userId)?.connected ?? false,
    }));
    return { webinar_id: webinarId, attendees, total, page: query.page, pages: Math.ceil(total / query.limit) };
  }

  private async takeSeat(tx: Tx, scope: Scope, webinarId: string, ref: UserRef, allowed: WebinarStatus[], operation: 'join' | 'register') {
    await this.webinars.find(scope, webinarId, tx.em);
    const user = await this.users.resolve(scope, ref, tx.em);
    const issued = this.tokens.newAttendeeToken();
    const seats = (await this.repo.insertAttendee(tx.em, scope, webinarId, user.id, issued.hash, issued.sealed)) ? 1 : 0;
    if (!(await this.repo.takeSeats(tx.em, webinarId, seats, allowed))) {
      const status = await this.repo.status(tx.em, webinarId);
      // Throwing rolls back the attendee row inserted above.
      throw allowed.includes(status) ? new DomainError('webinar_full') : stateConflict(status, operation);
    }
    const token = seats === 1 ? issued.token : await this.existingToken(tx, webinarId, user.id, issued);
    return { user, created: seats === 1, token };
  }

  /**
   * The link already given to a registered attendee. A seat from before random tokens (its link was derivable,
   * so the migration voided it) or sealed under another WEBHOOK_SECRET_KEY gets the fresh token instead.
   */
  private async existingToken(tx: Tx, webinarId: string, userId: number, fresh: IssuedAttendeeToken): Promise<string> {
    const token = this.tokens.openAttendeeToken(await this.repo.attendeeTokenSealed(tx.em, webinarId, userId));
    if (token) return token;
    await this.repo.replaceAttendeeToken(tx.em, webinarId, userId, fresh.hash, fresh.sealed);
    return fresh.token;
  }

  private async view(tx: Tx, scope: Scope, webinarId: string, user: UserSnapshot, token: string): Promise<AttendanceDto> {
    const attendee = await this.repo.findAttendee(tx.em, scope, webinarId, user.id);
    return { webinar_id: webinarId, ...toAttendeeView(attendee!, user), join_url: this.links.personalJoinUrl(webinarId, token) };
  }
}
