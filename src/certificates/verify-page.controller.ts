import { randomBytes } from 'node:crypto';
import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../auth/public.decorator';
import { RawResponse } from '../common/envelope.interceptor';
import { DomainError } from '../common/errors';
import { ApiErrors } from '../common/swagger';
import { CERT_ID_PARAM } from './certificates.controller';
import { CertificatesService } from './certificates.service';
import { renderTooManyRequestsPage, renderUnknownCertificatePage, renderVerifyPage } from './verify-page.html';
import { PublicRateLimit } from './public-rate-limit';

const HTML = { 'text/html': { schema: { type: 'string' } } };

function sendPage(res: Response, status: number, html: string, nonce: string, headers: Record<string, string> = {}): void {
  res
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
      'X-Robots-Tag': 'noindex, nofollow',
      // No script at all; the one inline style carries the nonce; nobody may frame the page.
      'Content-Security-Policy': `default-src 'none'; style-src 'nonce-${nonce}'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
      ...headers,
    })
    .send(html);
}

/** The page a person opens from the certificate's QR code or `verify_url` (outside /api, no key). */
@ApiTags('Pages')
@Public()
@RawResponse()
@Controller('verify')
export class VerifyPageController {
  constructor(
    private readonly certificates: CertificatesService,
    private readonly rateLimit: PublicRateLimit,
  ) {}

  @Get(':cert_id')
  @ApiOperation({
    summary: 'Certificate verification page (HTML, no API key needed)',
    description:
      "What `verify_url` and the PDF's QR code open: says whether the certificate is valid, with holder, course, issue date, platform and id, and nothing else about the learner. A revoked certificate says so (200); an unknown or malformed id gets a 404 page. Sent with a Content-Security-Policy that allows no script, `noindex`, and rate-limited per client IP (the verification limit, a separate counter; 429 is a page too). Machines should use `GET /api/certificates/verify/{cert_id}` (JSON) or the signed credential.",
  })
  @ApiParam(CERT_ID_PARAM)
  @ApiProduces('text/html')
  @ApiResponse({ status: 200, description: 'The certificate exists: valid, or revoked (the page says which).', content: HTML })
  @ApiResponse({ status: 404, description: 'No certificate has this id (HTML page).', content: HTML })
  @ApiResponse({ status: 429, description: 'Too many requests from this client IP (HTML page, with `Retry-After`).', content: HTML })
  @ApiErrors('service_unavailable')
  async page(@Param('cert_id') certId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const nonce = randomBytes(16).toString('base64');
    try {
      await this.rateLimit.spend('certificate-page', req);
    } catch (e) {
      if (!(e instanceof DomainError) || e.code !== 'rate_limited') throw e;
      const retryAfter = e.headers?.['Retry-After'] ?? '60';
      return sendPage(res, 429, renderTooManyRequestsPage(nonce, retryAfter), nonce, { 'Retry-After': retryAfter });
    }
    const cert = await this.certificates.findPublic(certId);
    if (!cert) return sendPage(res, 404, renderUnknownCertificatePage(nonce), nonce);
    // Links relative to the page: they stay on whatever host served it.
    const links = { download: `/api/certificates/${cert.id}/download`, credential: `/api/certificates/${cert.id}/credential` };
    sendPage(res, 200, renderVerifyPage(cert, links, nonce), nonce);
  }
}
