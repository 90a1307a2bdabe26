import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { DomainError } from '../common/errors';
import { ORIGIN_PATTERN } from '../common/text';
import { PartnersService } from '../partners/partners.service';
import { UsersService } from '../users/users.service';
import { AttendanceService } from './attendance.service';
import { WEBINAR_ID_SHAPE } from './webinar-state';
import { isTokenShaped, sha256Hex, tokenMatches } from './webinar-tokens';
import { type Webinar, WebinarsRepository } from './webinars.repository';
import { WebinarsService } from './webinars.service';
import { displayText } from '../common/text';

export interface PageState {
  webinar_id: string;
  status: Webinar['status'];
  scheduled_at: string;
  started_at: string | null;
  ended_at: string | null;
  joined_count: number;
}

export interface HostPageState extends PageState {
  registered_count: number;
  attendees: Array<{ name: string; status: 'registered' | 'joined'; joined_at: string | null }>;
}

const HOST_LIST_LIMIT = 200;

/**
 * What the /live pages need. Pages are addressed by the unguessable webinar id rather than an API key,
 * so lookups here are by id; host actions are authorised by the host token and then run the scoped services.
 */
@Injectable()
export class LivePagesService {
  constructor(
    private readonly repo: WebinarsRepository,
    private readonly users: UsersService,
    private readonly webinars: WebinarsService,
    private readonly attendance: AttendanceService,
    private readonly partners: PartnersService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** STUN/TURN servers the pages' peer connections use (WEBRTC_ICE_SERVERS). */
  get iceServers(): unknown[] {
    return this.config.media.iceServers;
  }

  async load(id: unknown): Promise<Webinar | null> {
    if (typeof id !== 'string' || !WEBINAR_ID_SHAPE.test(id)) return null;
    return this.repo.findAny(id);
  }

  /** Constant-time check of a host token against the stored hash. */
  async isHost(id: string, token: unknown): Promise<boolean> {
    if (!isTokenShaped(token)) return false;
    const hash = await this.repo.hostTokenHash(id);
    return hash !== null ? tokenMatches(token, hash) : false;
  }

  /** The attendee a personal token belongs to (for display), or null. */
  async attendeeName(id: string, token: unknown): Promise<string | null> {
    if (!isTokenShaped(token)) return null;
    const seat = await this.repo.attendeeByTokenHash(id, sha256Hex(token));
    if (!seat) return null;
    return (await this.users.snapshots(seat.scope, [seat.userId])).get(seat.userId)?.name ?? null;
  }

  /** Records a join through a personal link; the same service method as POST /api/webinars/:id/join. */
  async attend(id: string, token: unknown) {
    const joined = isTokenShaped(token) ? await this.attendance.joinWithToken(id, token) : null;
    if (!joined) throw new DomainError('webinar_not_found');
    return this.state(id);
  }

  async state(id: string): Promise<PageState> {
    const webinar = await this.load(id);
    if (!webinar) throw new DomainError('webinar_not_found');
    const joined = await this.repo.joinedCount(id);
    return {
      webinar_id: webinar.id,
      status: webinar.status,
      scheduled_at: webinar.scheduledAt.toISOString(),
      started_at: webinar.startedAt?.toISOString() ?? null,
      ended_at: webinar.endedAt?.toISOString() ?? null,
      joined_count: joined,
    };
  }

  async hostState(id: string, token: unknown): Promise<HostPageState> {
    const webinar = await this.requireHost(id, token);
    const seats = await this.repo.hostList(id, HOST_LIST_LIMIT);
    // Seats are taken in the webinar's own scope, so its learners are found there.
    const users = await this.users.snapshots(
      { partnerId: webinar.partnerId, mode: webinar.mode },
      seats.map((s) => s.userId),
    );
    const total = await this.repo.attendeeCount(id);
    return {
      ...(await this.state(id)),
      registered_count: total,
      attendees: seats.flatMap((s) => {
        const user = users.get(s.userId);
        return user ? [{ name: displayText(user.name), status: s.status, joined_at: s.joinedAt?.toISOString() ?? null }] : [];
      }),
    };
  }

  async hostAction(id: string, token: unknown, action: 'start' | 'end'): Promise<HostPageState> {
    const webinar = await this.requireHost(id, token);
    const scope = { partnerId: webinar.partnerId, mode: webinar.mode };
    if (action === 'start') await this.webinars.start(scope, id);
    else await this.webinars.end(scope, id);
    return this.hostState(id, token);
  }

  /** Origins allowed to frame the embed page: the partner's allowlist (well-formed entries only). */
  async frameAncestors(partnerId: number): Promise<string[]> {
    const partner = await this.partners.get(partnerId);
    return partner.allowedOrigins.filter((o) => ORIGIN_PATTERN.test(o));
  }

  private async requireHost(id: string, token: unknown): Promise<Webinar> {
    const webinar = await this.load(id);
    // A wrong token looks exactly like an unknown webinar.
    if (!webinar || !(await this.isHost(id, token))) throw new DomainError('webinar_not_found');
    return webinar;
  }
}
