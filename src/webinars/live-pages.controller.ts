import { randomBytes } from 'node:crypto';
import { Controller, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../auth/public.decorator';
import { RawResponse } from '../common/envelope.interceptor';
import { DomainError } from '../common/errors';
import { prefixedIdParam } from '../common/params';
import { LivePageModel, renderLivePage, renderNotFoundPage } from './live-page.html';
import { LivePagesService } from './live-pages.service';

// JSON routes: a malformed id is the 404 an unknown webinar gets (the embed page answers its own HTML 404 instead).
const webinarId = prefixedIdParam('wbn', 'webinar_not_found', 22);

function sendPage(res: Response, status: number, html: string, nonce: string, frameAncestors: string): void {
  res
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors ${frameAncestors}`,
    })
    .send(html);
}

/**
 * The service's own webinar pages (outside /api, no key): host view, attendee view, embed, and the small
 * JSON endpoints their script polls and posts to. Host actions are authorised by the X-Host-Token header.
 */
@ApiExcludeController()
@Public()
@RawResponse()
@Controller('live')
export class LivePagesController {
  constructor(private readonly pages: LivePagesService) {}

  @Get('join')
  async join(@Query('wbn') id: unknown, @Query('t') hostToken: unknown, @Query('a') attendeeToken: unknown, @Res() res: Response): Promise<void> {
    const nonce = randomBytes(16).toString('base64');
    const webinar = await this.pages.load(id);
    if (!webinar) return sendPage(res, 404, renderNotFoundPage(nonce), nonce, "'none'");
    const model: LivePageModel = { webinar, role: 'attendee', embed: false, nonce, iceServers: this.pages.iceServers };
    if (hostToken !== undefined && (await this.pages.isHost(webinar.id, hostToken))) {
      Object.assign(model, { role: 'host', token: hostToken });
      return sendPage(res, 200, renderLivePage(model, await this.pages.hostState(webinar.id, hostToken)), nonce, "'none'");
    }
    await this.personalise(model, attendeeToken);
    sendPage(res, 200, renderLivePage(model, await this.pages.state(webinar.id)), nonce, "'none'");
  }

  @Get('embed/:id')
  async embed(@Param('id') id: string, @Query('a') attendeeToken: unknown, @Res() res: Response): Promise<void> {
    const nonce = randomBytes(16).toString('base64');
    const webinar = await this.pages.load(id);
    if (!webinar) return sendPage(res, 404, renderNotFoundPage(nonce), nonce, "'self'");
    const model: LivePageModel = { webinar, role: 'attendee', embed: true, nonce, iceServers: this.pages.iceServers };
    await this.personalise(model, attendeeToken);
    const ancestors = ["'self'", ...(await this.pages.frameAncestors(webinar.partnerId))].join(' ');
    sendPage(res, 200, renderLivePage(model, await this.pages.state(webinar.id)), nonce, ancestors);
  }

  @Get('state/:id')
  state(@Param('id', webinarId) id: string) {
    return this.pages.state(id);
  }

  @Get('host/:id/state')
  hostState(@Param('id', webinarId) id: string, @Headers('x-host-token') token: string | undefined) {
    return this.pages.hostState(id, token);
  }

  @Post('host/:id/start')
  @HttpCode(200)
  start(@Param('id', webinarId) id: string, @Headers('x-host-token') token: string | undefined) {
    return this.pages.hostAction(id, token, 'start');
  }

  @Post('host/:id/end')
  @HttpCode(200)
  end(@Param('id', webinarId) id: string, @Headers('x-host-token') token: string | undefined) {
    return this.pages.hostAction(id, token, 'end');
  }

  /** Records a join from a personal page that was opened before the webinar went live. */
  @Post('attend/:id')
  @HttpCode(200)
  attend(@Param('id', webinarId) id: string, @Headers('x-attendee-token') token: string | undefined) {
    return this.pages.attend(id, token);
  }

  /** A personal link names its attendee; opened while live it records the join, like POST /api/webinars/:id/join. */
  private async personalise(model: LivePageModel, attendeeToken: unknown): Promise<void> {
    if (attendeeToken === undefined) return;
    const name = await this.pages.attendeeName(model.webinar.id, attendeeToken);
    if (!name) {
      model.notice = 'This personal link is not valid for this webinar; you can still follow along here.';
      return;
    }
    Object.assign(model, { token: attendeeToken, attendeeName: name });
    if (model.webinar.status !== 'live') return;
    try {
      await this.pages.attend(model.webinar.id, attendeeToken);
      model.joinedOnLoad = true;
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      model.notice = e.message;
      model.joinedOnLoad = true; // do not retry from the page (full, or ended meanwhile)
    }
  }
}
