import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { AuthContext } from '../auth/auth-context';
import { DomainError } from '../common/errors';
import { newId } from '../common/ids';
import { offsetOf, pageOf } from '../common/pagination';
import { Scope } from '../common/scope';
import { Tx, TransactionRunner } from '../events/transaction-runner';
import { UsersService } from '../users/users.service';
import { CreateWebinarDto } from './dto/create-webinar.dto';
import { ListWebinarsQuery, PublicWebinarsQuery } from './dto/list-webinars.query';
import { CreatedWebinarDto, EndedWebinarDto, WebinarDto } from './dto/webinar.dto';
import { actualMinutes, WebinarLinks } from './webinar.mapper';
import { stateConflict, WEBINAR_ID_SHAPE } from './webinar-state';
import { WebinarTokens } from './webinar-tokens';
import { type Webinar, WebinarsRepository } from './webinars.repository';
import { PresenceRepository } from './presence.repository';

/** Webinars themselves: creation (with the plan's room limit), reads, and the scheduled → live → ended transitions. */
@Injectable()
export class WebinarsService {
  constructor(
    private readonly repo: WebinarsRepository,
    private readonly tx: TransactionRunner,
    private readonly users: UsersService,
    private readonly links: WebinarLinks,
    private readonly tokens: WebinarTokens,
    private readonly presence: PresenceRepository,
  ) {}

  async create(auth: AuthContext, dto: CreateWebinarDto): Promise<CreatedWebinarDto> {
    const scope = auth.scope;
    return this.tx.run(async (tx) => {
      await this.users.snapshot(scope, dto.host_id, tx.em);
      await this.enforceRoomLimit(tx, scope, auth.plan.webinarRooms);
      const host = this.tokens.newHostToken();
      const webinar = await this.repo.insert(tx.em, scope, {
        id: newId('wbn'),
        title: dto.title,
        hostUserId: dto.host_id,
        scheduledAt: new Date(dto.scheduled_at),
        durationMinutes: dto.duration_minutes ?? 60,
        maxAttendees: dto.max_attendees ?? null,
        isPublic: dto.is_public ?? false,
        hostTokenHash: host.hash,
      });
      return { ...this.links.view(webinar), host_join_url: this.links.hostJoinUrl(webinar.id, host.token) };
    });
  }

  /** The caller's webinar, or 404 (also for another partner's or mode's, and for malformed ids: register, join and attendees pass theirs unchecked). */
  async find(scope: Scope, id: string, em?: EntityManager): Promise<Webinar> {
    const webinar = WEBINAR_ID_SHAPE.test(id) ? await this.repo.find(scope, id, em) : null;
    if (!webinar) throw new DomainError('webinar_not_found');
    return webinar;
  }

  async get(scope: Scope, id: string): Promise<WebinarDto> {
    return this.links.view(await this.find(scope, id));
  }

  async list(scope: Scope, query: ListWebinarsQuery) {
    const [rows, total] = await this.repo.page(scope, query.status, offsetOf(query), query.limit);
    return pageOf(
      'webinars',
      rows.map((w) => this.links.view(w)),
      total,
      query,
    );
  }

  /** Public, not ended webinars of every partner: live ones, and scheduled ones whose slot has not passed. */
  async listPublic(query: PublicWebinarsQuery) {
    const [rows, total] = await this.repo.publicPage(query.mode, offsetOf(query), query.limit);
    return pageOf(
      'webinars',
      rows.map((w) => this.links.publicView(w)),
      total,
      query,
    );
  }

  async start(scope: Scope, id: string): Promise<WebinarDto> {
    return this.tx.run(async (tx) => {
      await this.find(scope, id, tx.em);
      if (!(await this.repo.markLive(tx.em, id))) throw stateConflict(await this.repo.status(tx.em, id), 'start');
      const webinar = await this.find(scope, id, tx.em);
      await tx.record(
        scope,
        'webinar.started',
        {
          webinar_id: webinar.id,
          title: webinar.title,
          started_at: webinar.startedAt!.toISOString(),
          attendee_join_url: this.links.attendeeJoinUrl(webinar.id),
          embed_url: this.links.embedUrl(webinar.id),
        },
        webinar.startedAt!,
      );
      return this.links.view(webinar);
    });
  }

  async end(scope: Scope, id: string): Promise<EndedWebinarDto> {
    return this.tx.run(async (tx) => {
      await this.find(scope, id, tx.em);
      if (!(await this.repo.markEnded(tx.em, id))) throw stateConflict(await this.repo.status(tx.em, id), 'end');
      const webinar = await this.find(scope, id, tx.em);
      // The row lock taken by the UPDATE has let every in-flight join finish first; later joins see "ended".
      const count = await this.repo.joinedCount(id, tx.em);
      // Sessions still open end with the webinar; the relay drops their media once this commits.
      await this.presence.closeAll(tx.em, id, webinar.endedAt!);
      const presence = await this.presence.summary(tx.em, id);
      const result: EndedWebinarDto = {
        webinar_id: webinar.id,
        status: 'ended',
        started_at: webinar.startedAt!.toISOString(),
        ended_at: webinar.endedAt!.toISOString(),
        duration_minutes: actualMinutes(webinar.startedAt!, webinar.endedAt!),
        attendance_count: count,
      };
      await tx.record(
        scope,
        'webinar.ended',
        {
          webinar_id: result.webinar_id,
          title: webinar.title,
          started_at: result.started_at,
          ended_at: result.ended_at,
          duration_minutes: result.duration_minutes,
          attendance_count: result.attendance_count,
          peak_concurrent_attendees: presence.peakConcurrent,
          total_watch_minutes: Math.round(presence.totalWatchSeconds / 0.6) / 100,
        },
        webinar.endedAt!,
      );
      return result;
    });
  }

  /** Rooms open at once = webinars not ended, per partner and mode; the advisory lock makes check-then-insert race-free. */
  private async enforceRoomLimit(tx: Tx, scope: Scope, limit: number | null): Promise<void> {
    if (limit === null) return;
    const open = await this.repo.lockAndCountOpenRooms(tx.em, scope);
    if (open >= limit) throw new DomainError('plan_limit_exceeded', { limit: 'webinar_rooms', allowed: limit, open });
  }
}
