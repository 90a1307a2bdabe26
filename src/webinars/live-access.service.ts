import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors';
import { Scope } from '../common/scope';
import { WEBINAR_ID_SHAPE } from './webinar-state';
import { isTokenShaped, sha256Hex, tokenMatches } from './webinar-tokens';
import { type Webinar, WebinarsRepository } from './webinars.repository';
import { WebinarsService } from './webinars.service';

export interface LiveWebinarRef {
  id: string;
  scope: Scope;
  status: Webinar['status'];
}

/** Who may publish and play a webinar's media, decided from the bearer token the WHIP/WHEP request carries. */
@Injectable()
export class LiveAccessService {
  constructor(
    private readonly repo: WebinarsRepository,
    private readonly webinars: WebinarsService,
  ) {}

  /**
   * The host publishes: the host token alone (none → 401, an attendee's → 403, anything else → 401), never once the
   * webinar ended. A scheduled webinar goes live here, with webinar.started, exactly as POST /api/webinars/:id/start.
   */
  async authorizePublish(id: string, token: string | null): Promise<LiveWebinarRef> {
    const webinar = await this.load(id);
    if (token === null) throw new DomainError('missing_token');
    const hostHash = await this.repo.hostTokenHash(id);
    if (!hostHash || !tokenMatches(token, hostHash)) {
      const attendee = isTokenShaped(token) ? await this.repo.attendeeByTokenHash(id, sha256Hex(token)) : null;
      throw new DomainError(attendee ? 'host_token_required' : 'invalid_token');
    }
    const scope = { partnerId: webinar.partnerId, mode: webinar.mode };
    if (webinar.status === 'ended') throw new DomainError('webinar_ended');
    if (webinar.status === 'scheduled') {
      try {
        await this.webinars.start(scope, id);
      } catch (e) {
        // Another request started it first: it is live either way.
        if (!(e instanceof DomainError) || e.code !== 'webinar_already_live') throw e;
      }
    }
    return { id, scope, status: 'live' };
  }

  /**
   * Attendees play with their personal token; the host token plays too (a second screen), and a public webinar
   * needs no token. Returns the attendee's user id (null for the host and anonymous viewers) and whether it is the host.
   */
  async authorizePlay(id: string, token: string | null): Promise<LiveWebinarRef & { userId: number | null; host: boolean }> {
    const webinar = await this.load(id);
    const ref = { id, scope: { partnerId: webinar.partnerId, mode: webinar.mode }, status: webinar.status };
    if (webinar.status === 'ended') throw new DomainError('webinar_ended');
    if (token === null) {
      if (!webinar.isPublic) throw new DomainError('missing_token');
      return { ...ref, userId: null, host: false };
    }
    const seat = isTokenShaped(token) ? await this.repo.attendeeByTokenHash(id, sha256Hex(token)) : null;
    if (seat) return { ...ref, userId: seat.userId, host: false };
    const hostHash = await this.repo.hostTokenHash(id);
    if (hostHash && tokenMatches(token, hostHash)) return { ...ref, userId: null, host: true };
    throw new DomainError('invalid_token');
  }

  private async load(id: string): Promise<Webinar> {
    const webinar = WEBINAR_ID_SHAPE.test(id) ? await this.repo.findAny(id) : null;
    if (!webinar) throw new DomainError('webinar_not_found');
    return webinar;
  }
}
