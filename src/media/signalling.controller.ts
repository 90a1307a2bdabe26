import { Controller, Delete, Get, Headers, HttpCode, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiExcludeEndpoint,
  ApiExtension,
  ApiHeader,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiQuery,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../auth/public.decorator';
import { RawResponse } from '../common/envelope.interceptor';
import { DomainError } from '../common/errors';
import { prefixedIdParam } from '../common/params';
import { ApiErrors } from '../common/swagger';
import { LiveAccessService } from '../webinars/live-access.service';
import { MediaPresence } from './media-presence.service';
import { MediaRelay, OpenedSession } from './media-relay.service';
import type { MediaSession } from './media-room';
import { RelayOwnership } from './relay-ownership';
import { SDP_TYPE } from '../common/sdp-body';

const webinarId = prefixedIdParam('wbn', 'webinar_not_found', 22);
const SESSION_ID = /^[A-Za-z0-9_-]{22}$/;
/** What a session URL serves: DELETE to leave, GET (and HEAD) for the pages' check that it is still open. */
const SESSION_METHODS = ['DELETE', 'GET', 'HEAD'];

const SDP_BODY = {
  description: 'An SDP offer (RFC 8866) with audio and/or video; VP8 and Opus are relayed.',
  schema: { type: 'string' },
};
const ANSWER = {
  status: 201,
  description: 'The SDP answer, with every candidate of the relay (no trickle needed).',
  content: { [SDP_TYPE]: { schema: { type: 'string' } } },
  headers: {
    Location: { description: 'The session URL: DELETE it to stop.', schema: { type: 'string' } },
    ETag: { description: 'The session entity tag (RFC 9725 section 4.3.1).', schema: { type: 'string' } },
  },
};
const BEARER = {
  name: 'Authorization',
  required: false,
  description: '`Bearer <token>`',
  schema: { type: 'string', pattern: '^Bearer [0-9A-Za-z_-]{32,128}$' },
};
const SESSION_PARAM = { name: 'session_id', description: 'The id at the end of the Location the POST answered.', schema: { type: 'string' } };

function bearer(header: string | undefined): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m ? m[1] : null;
}

function sdpOffer(req: Request): string {
  const body: unknown = req.body;
  if (typeof body !== 'string' || !body.startsWith('v=0')) {
    throw new DomainError('validation_failed', [{ field: 'body', message: 'body must be an SDP offer (starting with v=0)' }]);
  }
  return body;
}

function sendAnswer(res: Response, location: string, opened: OpenedSession): void {
  res
    .status(201)
    .set({ 'Content-Type': SDP_TYPE, Location: `${location}/${opened.session.id}`, ETag: `"${opened.session.etag}"`, 'Cache-Control': 'no-store' })
    .send(opened.answer);
}

/**
 * WebRTC signalling over the two standard HTTP protocols: WHIP (RFC 9725) for the host's publisher and WHEP for
 * viewers. A POST carries an SDP offer and answers the relay's SDP answer; the session URL it names is DELETEd to
 * leave. The session id (128 random bits) is the capability for DELETE, as the URL is known only to its client.
 * Every route first goes to the instance that owns the webinar's relay (RelayOwnership): one room per webinar.
 */
@ApiTags('Webinars')
@Public()
@RawResponse()
@ApiExtension('x-webinar-token', true)
@Controller('live/:id')
export class SignallingController {
  constructor(
    private readonly relay: MediaRelay,
    private readonly access: LiveAccessService,
    private readonly presence: MediaPresence,
    private readonly ownership: RelayOwnership,
  ) {}

  @Post('whip')
  @ApiOperation({
    summary: 'Publish the host’s audio and video (WHIP)',
    description:
      'WHIP (RFC 9725) with the host token (`t` of `host_join_url`) as bearer token: OBS Studio, GStreamer or the host page publish here. A scheduled webinar goes live (`webinar.started`). One publisher at a time: another is 409 `webinar_already_publishing` unless `take_over=true`, which closes the current one first.',
  })
  @ApiParam({ name: 'id', description: 'The webinar id (`wbn_…`).' })
  @ApiHeader({ ...BEARER, required: true })
  @ApiQuery({ name: 'take_over', required: false, description: 'Close the current publisher first.', schema: { type: 'boolean' } })
  @ApiConsumes(SDP_TYPE)
  @ApiBody(SDP_BODY)
  @ApiProduces(SDP_TYPE)
  @ApiResponse(ANSWER)
  @ApiErrors('validation_failed', 'missing_token', 'invalid_token', 'host_token_required', 'webinar_not_found', 'webinar_ended', 'webinar_already_publishing')
  async publish(
    @Param('id', webinarId) id: string,
    @Headers('authorization') authorization: string | undefined,
    @Query('take_over') takeOver: unknown,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const route = await this.ownership.forwardIfElsewhere(id, req, res);
    if (route.forwarded) return;
    if (takeOver !== undefined && takeOver !== 'true' && takeOver !== 'false') {
      throw new DomainError('validation_failed', [{ field: 'take_over', message: 'take_over must be true or false' }]);
    }
    const offer = sdpOffer(req);
    await this.access.authorizePublish(id, bearer(authorization));
    if (await this.ownership.takeOrForward(id, req, res, route.deadOwner)) return;
    sendAnswer(res, `/live/${id}/whip`, await this.relay.publish(id, offer, takeOver === 'true'));
  }

  @Post('whep')
  @ApiOperation({
    summary: 'Play the webinar’s audio and video (WHEP)',
    description:
      'WHEP with the attendee’s personal token (`a` of their `join_url`) as bearer token; a public webinar plays without one. Playing before the host publishes succeeds: media starts when the host does. When the instance carrying the webinar already has as many viewers as it can carry (`MEDIA_MAX_VIEWERS`), 503 `service_unavailable` with `Retry-After`; the viewers already watching are not affected.',
  })
  @ApiParam({ name: 'id', description: 'The webinar id (`wbn_…`).' })
  @ApiHeader(BEARER)
  @ApiConsumes(SDP_TYPE)
  @ApiBody(SDP_BODY)
  @ApiProduces(SDP_TYPE)
  @ApiResponse(ANSWER)
  @ApiErrors('validation_failed', 'missing_token', 'invalid_token', 'webinar_not_found', 'webinar_ended', 'service_unavailable')
  async play(
    @Param('id', webinarId) id: string,
    @Headers('authorization') authorization: string | undefined,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const route = await this.ownership.forwardIfElsewhere(id, req, res);
    if (route.forwarded) return;
    const offer = sdpOffer(req);
    const viewer = await this.access.authorizePlay(id, bearer(authorization));
    if (await this.ownership.takeOrForward(id, req, res, route.deadOwner)) return;
    const opened = await this.relay.play(id, offer, viewer.userId);
    // The host watching on a second screen is not an attendee: only attendees and anonymous viewers are measured.
    if (!viewer.host) this.presence.track({ webinarId: id, scope: viewer.scope, userId: viewer.userId }, opened.session);
    sendAnswer(res, `/live/${id}/whep`, opened);
  }

  @Delete('whip/:session_id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Stop publishing (WHIP session)' })
  @ApiParam({ name: 'id', description: 'The webinar id (`wbn_…`).' })
  @ApiParam(SESSION_PARAM)
  @ApiResponse({ status: 200, description: 'The session is closed.' })
  @ApiErrors('webinar_not_found', 'media_session_not_found')
  async stopPublishing(@Param('id', webinarId) id: string, @Param('session_id') sessionId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    if ((await this.ownership.forwardIfElsewhere(id, req, res)).forwarded) return;
    await this.closeSession(id, sessionId, 'publisher');
    res.status(200).end();
  }

  @Delete('whep/:session_id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Stop playing (WHEP session)' })
  @ApiParam({ name: 'id', description: 'The webinar id (`wbn_…`).' })
  @ApiParam(SESSION_PARAM)
  @ApiResponse({ status: 200, description: 'The session is closed.' })
  @ApiErrors('webinar_not_found', 'media_session_not_found')
  async stopPlaying(@Param('id', webinarId) id: string, @Param('session_id') sessionId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    if ((await this.ownership.forwardIfElsewhere(id, req, res)).forwarded) return;
    await this.closeSession(id, sessionId, 'viewer');
    res.status(200).end();
  }

  /**
   * Whether the page's own session is still open on the webinar's relay: the pages ask with their state poll, so a
   * host whose relay died (or handed the webinar to another instance) publishes again at once.
   */
  @Get(['whip/:session_id', 'whep/:session_id'])
  @ApiExcludeEndpoint()
  async sessionState(@Param('id', webinarId) id: string, @Param('session_id') sessionId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    if ((await this.ownership.forwardIfElsewhere(id, req, res)).forwarded) return;
    const role = req.path.includes('/whip/') ? 'publisher' : 'viewer';
    const session = SESSION_ID.test(sessionId) ? this.relay.room(id)?.session(sessionId) : undefined;
    if (!session || session.role !== role) throw new DomainError('media_session_not_found');
    res.status(200).set('Cache-Control', 'no-store').json({ session_id: session.id, connection_state: session.pc.connectionState });
  }

  /** Trickle ICE is not needed: answers carry every candidate, and clients may send theirs in the offer. */
  @Patch(['whip/:session_id', 'whep/:session_id'])
  @ApiExcludeEndpoint()
  async trickle(@Param('id', webinarId) id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    if ((await this.ownership.forwardIfElsewhere(id, req, res)).forwarded) return;
    throw new DomainError('method_not_allowed', { allow: SESSION_METHODS }, 'Trickle ICE is not supported: send every candidate in the offer.', {
      Allow: SESSION_METHODS.join(', '),
    });
  }

  private async closeSession(id: string, sessionId: string, role: MediaSession['role']): Promise<void> {
    if (!SESSION_ID.test(sessionId) || !(await this.relay.close(id, sessionId, role))) throw new DomainError('media_session_not_found');
  }
}
