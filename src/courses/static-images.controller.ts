import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../auth/public.decorator';
import { RawResponse } from '../common/envelope.interceptor';
import { ApiErrors } from '../common/swagger';
import { CoursePagesService } from './course-pages.service';
import { MAX_INT_ID } from '../common/params';

const SVG_FILE = /^([1-9]\d{0,9})\.svg$/;

/** Sends an SVG, or a plain 404 (these are files, not API resources: no JSON envelope). */
export function sendSvg(res: Response, svg: string | null): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (svg === null) {
    res.status(404).type('text/plain; charset=utf-8').setHeader('Cache-Control', 'no-store').send('Not found\n');
    return;
  }
  // Scripts in an SVG opened directly would run on our origin; the policy forbids them.
  res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
  res.status(200).type('image/svg+xml; charset=utf-8').setHeader('Cache-Control', 'public, max-age=300').send(svg);
}

export function idOfFile(file: string): number | null {
  const match = SVG_FILE.exec(file);
  const id = match ? Number(match[1]) : null;
  return id !== null && id <= MAX_INT_ID ? id : null;
}

@ApiTags('Pages')
@Public()
@RawResponse()
@Controller('static')
export class StaticImagesController {
  constructor(private readonly pages: CoursePagesService) {}

  @Get('thumbnails/:file')
  @ApiOperation({ summary: "A published course's generated thumbnail (SVG card: title, category, a colour per category)" })
  @ApiParam({ name: 'file', example: '42.svg' })
  @ApiProduces('image/svg+xml')
  @ApiOkResponse({ description: 'The SVG image', schema: { type: 'string' } })
  @ApiNotFoundResponse({ description: 'No published course with this id (plain text)' })
  @ApiErrors('service_unavailable')
  async thumbnail(@Param('file') file: string, @Res() res: Response): Promise<void> {
    const id = idOfFile(file);
    sendSvg(res, id === null ? null : await this.pages.thumbnail(id));
  }

  @Get('avatars/:file')
  @ApiOperation({ summary: "A tutor's generated avatar (SVG: initials on a coloured circle)" })
  @ApiParam({ name: 'file', example: '12.svg' })
  @ApiProduces('image/svg+xml')
  @ApiOkResponse({ description: 'The SVG image', schema: { type: 'string' } })
  @ApiNotFoundResponse({ description: 'No tutor with this id (plain text)' })
  @ApiErrors('service_unavailable')
  async avatar(@Param('file') file: string, @Res() res: Response): Promise<void> {
    const id = idOfFile(file);
    sendSvg(res, id === null ? null : await this.pages.avatar(id));
  }
}
