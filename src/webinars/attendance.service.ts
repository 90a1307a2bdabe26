import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { returning, sql } from '../common/database';
import { DomainError } from '../common/errors';
import { offsetOf } from '../common/pagination';
import { Mode, Scope, scoped } from '../common/scope';
import { Tx, TransactionRunner } from '../events/transaction-runner';
import { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { AttendanceDto, AttendeeListDto, ListAttendeesQuery } from './dto/attendee.dto';
import { toAttendeeView, WebinarLinks } from './webinar.mapper';
import { currentStatus, stateConflict } from './webinar-sql';
import { IssuedAttendeeToken, sha256Hex, WebinarTokens } from './webinar-tokens';
import { WebinarAttendee } from './webinar-attendee.entity';
import { WebinarsService } from './webinars.service';
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
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly users: UsersService,
    private readonly webinars: WebinarsService,
    private readonly links: WebinarLinks,
    private readonly tokens: WebinarTokens,
  ) {}

  /** Registers a user (scheduled or live webinars). Registering again is harmless: same seat, same personal link. */
  async register(scope: Scope, webinarId: string, ref: UserRef): Promise<{ created: boolean; attendance: AttendanceDto }> {
    return this.tx.run(async (tx) => {
      const { user, created, token } = await this.takeSeat(tx, scope, webinarId, ref, ['scheduled', 'live'], 'register');
      return { created, attendance: await this.view(tx, scope, webinarId, user, token) };
    });
  }

  /**
   * Joins a live webinar (registering on the way if needed). Every join, including a re-join of someone
   * already in, emits webinar.joined; joined_at keeps the first join, the event carries this one's time.
   */
  async join(scope: Scope, webinarId: string, ref: UserRef): Promise<AttendanceDto> {
    return this.tx.run(async (tx) => {
      const { user, token } = await this.takeSeat(tx, scope, webinarId, ref, ['live'], 'join');
      const [row] = await returning<{ now: Date }>(
        tx.em,
        `UPDATE webinar_attendees SET status = 'joined', joined_at = COALESCE(joined_at, now()) WHERE webinar_id = $1 AND user_id = $2 RETURNING now() AS now`,
        [webinarId, user.id],
      );
      await tx.record(scope, 'webinar.joined', {
        webinar_id: webinarId,
        user_id: user.id,
        external_user_id: user.externalUserId,
        name: user.name,
        email: user.email,
        joined_at: row.now.toISOString(),
      }, row.now);
      return this.view(tx, scope, webinarId, user, token);
    });
  }

  /** The join behind a personal link (`&a=<token>`): null when the token does not belong to this webinar. */
  async joinWithToken(webinarId: string, token: string): Promise<AttendanceDto | null> {
    const [row] = await sql<{ partner_id: number; mode: Mode; user_id: number }>(
      this.dataSource,
      `SELECT partner_id, mode, user_id FROM webinar_attendees WHERE webinar_id = $1 AND attendee_token_hash = $2`,
      [webinarId, sha256Hex(token)],
    );
    if (!row) return null;
    return this.join({ partnerId: row.partner_id, mode: row.mode }, webinarId, { user_id: row.user_id });
  }

  async list(scope: Scope, webinarId: string, query: ListAttendeesQuery): Promise<AttendeeListDto> {
    await this.webinars.find(scope, webinarId);
    const [rows, total] = await scoped(this.dataSource.manager, scope)
      .query(WebinarAttendee, 'a')
      .andWhere('a.webinar_id = :webinarId', { webinarId })
      .innerJoinAndMapOne('a.user', User, 'u', 'u.id = a.user_id')
      .orderBy('a.registered_at', 'ASC')
      .addOrderBy('a.id', 'ASC')
      .offset(offsetOf(query))
      .limit(query.limit)
      .getManyAndCount();
    const attendees = rows.map((a) => toAttendeeView(a, (a as WebinarAttendee & { user: User }).user));
    return { webinar_id: webinarId, attendees, total, page: query.page, pages: Math.ceil(total / query.limit) };
  }

  private async takeSeat(tx: Tx, scope: Scope, webinarId: string, ref: UserRef, allowed: WebinarStatus[], operation: 'join' | 'register') {
    await this.webinars.find(scope, webinarId, tx.em);
    const user = await this.users.resolve(scope, ref, tx.em);
    const issued = this.tokens.newAttendeeToken();
    // A concurrent insert for the same user waits here and then does nothing, so one user never holds two seats.
    const inserted = await sql<{ id: number }>(
      tx.em,
      `INSERT INTO webinar_attendees (partner_id, mode, webinar_id, user_id, status, registered_at, attendee_token_hash, attendee_token_sealed)
       VALUES ($1, $2, $3, $4, 'registered', now(), $5, $6) ON CONFLICT (webinar_id, user_id) DO NOTHING RETURNING id`,
      [scope.partnerId, scope.mode, webinarId, user.id, issued.hash, issued.sealed],
    );
    const seats = inserted.length ? 1 : 0;
    const [ok] = await returning<{ id: string }>(
      tx.em,
      `UPDATE webinars SET seats_taken = seats_taken + $2
       WHERE id = $1 AND status = ANY($3::varchar[]) AND ($2 = 0 OR max_attendees IS NULL OR seats_taken < max_attendees) RETURNING id`,
      [webinarId, seats, allowed],
    );
    if (!ok) {
      const status = await currentStatus(tx.em, webinarId);
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
    const [row] = await sql<{ attendee_token_sealed: string | null }>(tx.em, `SELECT attendee_token_sealed FROM webinar_attendees WHERE webinar_id = $1 AND user_id = $2`, [
      webinarId,
      userId,
    ]);
    const token = this.tokens.openAttendeeToken(row.attendee_token_sealed);
    if (token) return token;
    await tx.em.query(`UPDATE webinar_attendees SET attendee_token_hash = $3, attendee_token_sealed = $4 WHERE webinar_id = $1 AND user_id = $2`, [
      webinarId,
      userId,
      fresh.hash,
      fresh.sealed,
    ]);
    return fresh.token;
  }

  private async view(tx: Tx, scope: Scope, webinarId: string, user: User, token: string): Promise<AttendanceDto> {
    const attendee = await tx.scoped(scope).findOne(WebinarAttendee, { webinarId, userId: user.id });
    return { webinar_id: webinarId, ...toAttendeeView(attendee!, user), join_url: this.links.personalJoinUrl(webinarId, token) };
  }
}
