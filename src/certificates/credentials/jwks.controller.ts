import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../../auth/public.decorator';
import { RawResponse } from '../../common/envelope.interceptor';
import { ApiErrors } from '../../common/swagger';
import { PublicRateLimit } from '../public-rate-limit';
import { CredentialSigner } from './credential-signer';
import { CredentialJwksDto } from './jwks.dto';

/** The public key set of credential signatures, at the well-known path verifiers look for (outside /api). */
@ApiTags('Certificates')
@Public()
@RawResponse()
@Controller('.well-known')
export class JwksController {
  constructor(
    private readonly signer: CredentialSigner,
    private readonly rateLimit: PublicRateLimit,
  ) {}

  @Get('jwks.json')
  @ApiOperation({
    summary: 'Public keys of credential signatures (JWKS, no API key needed)',
    description:
      'The JSON Web Key Set (RFC 7517) holding the Ed25519 public key whose `kid` appears in the header of every credential from `GET /api/certificates/{cert_id}/credential`. Point any JOSE library at this URL to verify credentials. Cacheable for 5 minutes; rate-limited per client IP (the verification limit, a separate counter).',
  })
  @ApiOkResponse({ type: CredentialJwksDto, description: 'The key set (no envelope).' })
  @ApiErrors('rate_limited', 'service_unavailable')
  async jwks(@Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<CredentialJwksDto> {
    await this.rateLimit.spend('credential-jwks', req);
    res.setHeader('Cache-Control', 'public, max-age=300');
    // Verifiers running in a browser on any origin may fetch the key set.
    res.setHeader('Access-Control-Allow-Origin', '*');
    return (await this.signer.jwks()) as CredentialJwksDto;
  }
}
