import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../auth/public.decorator';
import { RawResponse } from '../common/envelope.interceptor';
import { ApiErrors } from '../common/swagger';
import { ORIGIN_PATTERN } from '../common/text';
import { CorsOrigins } from '../partners/cors-origins';
import { CoursePagesService } from './course-pages.service';
import { MAX_INT_ID } from '../common/params';

@ApiTags('Pages')
@Public()
@RawResponse()
@Controller('preview')
export class PreviewController {
  constructor(
    private readonly pages: CoursePagesService,
    private readonly origins: CorsOrigins,
  ) {}

  @Get('courses/:id')
  @ApiOperation({ summary: "A published course's preview page (HTML): title, description, free preview topics, video placeholder" })
  @ApiParam({ name: 'id', type: Number, example: 42 })
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'The HTML page', schema: { type: 'string' } })
  @ApiNotFoundResponse({ description: 'No published course with this id (plain text)' })
  @ApiErrors('service_unavailable')
  async course(@Param('id') raw: string, @Res() res: Response): Promise<void> {
    const id = /^[1-9]\d{0,9}$/.test(raw) && Number(raw) <= MAX_INT_ID ? Number(raw) : null;
    const html = id === null ? null : await this.pages.preview(id);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (html === null) {
      res.status(404).type('text/plain; charset=utf-8').setHeader('Cache-Control', 'no-store').send('Course not found\n');
      return;
    }
    // The catalogue is shared, so any partner may embed a preview in its product; no other site may frame it.
    const ancestors = ["'self'", ...(await this.origins.all()).filter((o) => ORIGIN_PATTERN.test(o))].join(' ');
    res.setHeader(
      'Content-Security-Policy',
      `default-src 'none'; style-src 'unsafe-inline'; img-src 'self' https: http:; base-uri 'none'; form-action 'none'; frame-ancestors ${ancestors}`,
    );
    res.status(200).type('text/html; charset=utf-8').setHeader('Cache-Control', 'public, max-age=60').send(html);
  }
}
