import { Body, Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiNotFoundResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Auth, AuthContext } from '../auth/auth-context';
import { PlanFeature } from '../auth/auth.decorators';
import { Public } from '../auth/public.decorator';
import { RawResponse } from '../common/envelope.interceptor';
import { DomainError } from '../common/errors';
import { ApiErrors, ApiSuccess, KEYED_ERRORS } from '../common/swagger';
import { toPublicCertificate } from './certificate.mapper';
import { CertificatesService } from './certificates.service';
import { CredentialSigner, VC_JWT_MEDIA_TYPE } from './credentials/credential-signer';
import { CertificateDto, IssueCertificateDto, VerificationDto } from './dto/certificate.dto';
import { PublicRateLimit } from './public-rate-limit';

export const CERT_ID_PARAM = {
  name: 'cert_id',
  example: 'ECK-2026-7K3QX9M2PD',
  description: '`<ECK|TST>-<year>-<10 Crockford base32 chars>` (case-insensitive).',
};

@ApiTags('Certificates')
@Controller('certificates')
export class CertificatesController {
  constructor(
    private readonly certificates: CertificatesService,
    private readonly rateLimit: PublicRateLimit,
    private readonly signer: CredentialSigner,
  ) {}

  @Post('issue')
  @PlanFeature('certificates')
  @ApiOperation({
    summary: 'Issue a certificate manually',
    description: [
      'Needs an enrolment of the learner in the course. Issues when every topic is completed and every quiz passed; otherwise 422 `course_not_completed` with `{ completed_topics, total_topics, quizzes_pending }`.',
      '`override_quiz: true` waives the quizzes (never the topics) and needs an admin key (403 `admin_only`). One certificate per enrolment: 409 `certificate_already_issued` with `{ certificate_id }`. Emits `certificate.issued`.',
      "Admin keys: with `X-Partner-Id` (and `X-Partner-Mode`) the learner is looked up in that partner's scope; without it, `user_id` is resolved across all partners and the certificate belongs to that learner's partner and mode.",
      'Completing a course through progress tracking issues the certificate automatically; this endpoint is for cases that need a manual step.',
    ].join('\n\n'),
  })
  @ApiSuccess(CertificateDto, { status: 201 })
  @ApiErrors(
    'validation_failed',
    'invalid_json',
    'admin_only',
    'user_not_found',
    'enrollment_not_found',
    'certificate_already_issued',
    'course_not_completed',
    'idempotency_key_reused',
    'idempotency_request_in_progress',
    ...KEYED_ERRORS,
  )
  issue(@Auth() auth: AuthContext, @Req() req: Request, @Body() dto: IssueCertificateDto): Promise<CertificateDto> {
    return this.certificates.issue(auth, req.headers['x-partner-id'] !== undefined, dto);
  }

  @Get('verify/:cert_id')
  @Public()
  @RawResponse()
  @ApiOperation({
    summary: 'Verify a certificate (no API key needed)',
    description:
      'Public: no key, no envelope, not counted against any quota; rate-limited per client IP (429 `rate_limited` with Retry-After). ' +
      '200 `{ valid: true, test, certificate }` (`test` is true for a certificate issued with a test key: an integration test, not a real certificate); a revoked certificate gives 200 with `valid: false`; an unknown or malformed id gives 404 `{ valid: false, certificate: null }`. ' +
      '`platform` is "Learning Platform", or "Learning Platform (test)" for certificates issued with a test key (`TST-…`).',
  })
  @ApiParam(CERT_ID_PARAM)
  @ApiOkResponse({ type: VerificationDto, description: 'Found; `valid` is false when revoked.' })
  @ApiNotFoundResponse({
    description: 'Unknown or malformed id',
    schema: { type: 'object', properties: { valid: { type: 'boolean', example: false }, certificate: { type: 'object', nullable: true, example: null } } },
  })
  @ApiErrors('rate_limited', 'service_unavailable')
  async verify(
    @Param('cert_id') certId: string,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<VerificationDto | { valid: false; certificate: null }> {
    await this.rateLimit.spend('certificate-verify', req);
    res.setHeader('Cache-Control', 'no-store');
    const cert = await this.certificates.findPublic(certId);
    if (!cert) {
      res.status(404);
      return { valid: false, certificate: null };
    }
    return { valid: cert.revokedAt === null, test: cert.mode === 'test', certificate: toPublicCertificate(cert) };
  }

  @Get(':cert_id/download')
  @Public()
  @RawResponse()
  @ApiOperation({
    summary: 'Download a certificate as PDF (no API key needed)',
    description:
      'A one-page A4 landscape PDF with holder, course, date of issue, certificate id, platform and a verification link and QR code. Revoked certificates are stamped REVOKED. Rate-limited per client IP (the verification limit, a separate counter).',
  })
  @ApiParam(CERT_ID_PARAM)
  @ApiProduces('application/pdf')
  @ApiOkResponse({
    description: 'The PDF (`Content-Disposition: inline; filename="certificate-<id>.pdf"`)',
    content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
  })
  @ApiErrors('certificate_not_found', 'rate_limited', 'service_unavailable')
  async download(@Param('cert_id') certId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.rateLimit.spend('certificate-download', req);
    const cert = await this.certificates.findPublic(certId);
    if (!cert) throw new DomainError('certificate_not_found');
    // Loaded on the first download: PDFKit, fontkit and the QR code library take ~0.2 s of CPU to load, which every
    // start of the service (and every test file that boots it) paid for a route most instances rarely serve.
    const { renderCertificatePdf } = await import('./pdf/certificate-pdf');
    const pdf = await renderCertificatePdf(cert, this.certificates.verifyUrl(cert.id));
    res.status(200);
    res.setHeader('Content-Type', 'application/pdf');
    res.setHeader('Content-Disposition', `inline; filename="certificate-${cert.id}.pdf"`);
    res.setHeader('Content-Length', String(pdf.length));
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.end(pdf);
  }

  @Get(':cert_id/credential')
  @Public()
  @RawResponse()
  @ApiOperation({
    summary: 'The certificate as a signed Open Badges 3.0 credential (no API key needed)',
    description: [
      'A VC-JWT: a compact JWS (`alg: EdDSA` over Ed25519, `typ: vc+jwt`, `kid` naming the key in `/.well-known/jwks.json`) whose payload is an Open Badges 3.0 `OpenBadgeCredential` (W3C Verifiable Credentials Data Model 2.0) plus the JWT claims `iss` (= `issuer.id`), `jti` (= `id`), `sub` (= `credentialSubject.id`) and `nbf` (= `validFrom`).',
      'Wallets and other platforms verify it with any JOSE library against the public key set, without calling us. The same certificate always gives the same bytes under one key. No `exp`: certificates do not expire; revocation is answered here (410) and by the verification endpoint and page.',
      'Revoked: 410 `certificate_revoked`; unknown or malformed id: 404 `certificate_not_found`. Rate-limited per client IP (the verification limit, a separate counter).',
    ].join('\n\n'),
  })
  @ApiParam(CERT_ID_PARAM)
  @ApiProduces(VC_JWT_MEDIA_TYPE)
  @ApiOkResponse({
    description:
      'The compact JWS (`header.payload.signature`, base64url) as the whole body. Decoded payload: `{ "@context": ["https://www.w3.org/ns/credentials/v2", "https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json"], id, type: ["VerifiableCredential", "OpenBadgeCredential"], issuer: { id, type: ["Profile"], name, url }, validFrom, name, credentialSubject: { id, type: ["AchievementSubject"], name, achievement: { id, type: ["Achievement"], name, description, criteria: { narrative } } }, iss, jti, sub, nbf }` (see the certificates guide).',
    content: { [VC_JWT_MEDIA_TYPE]: { schema: { type: 'string', pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$' } } },
  })
  @ApiErrors('certificate_not_found', 'certificate_revoked', 'rate_limited', 'service_unavailable')
  async credential(@Param('cert_id') certId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.rateLimit.spend('certificate-credential', req);
    const cert = await this.certificates.findPublic(certId);
    if (!cert) throw new DomainError('certificate_not_found');
    const jwt = await this.signer.sign(cert);
    res.status(200);
    res.setHeader('Content-Type', VC_JWT_MEDIA_TYPE);
    res.setHeader('Content-Disposition', `inline; filename="certificate-${cert.id}.jwt"`);
    // Revocation must show at once: the credential is not cached.
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.end(jwt);
  }
}
