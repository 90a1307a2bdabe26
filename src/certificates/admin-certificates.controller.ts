import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Auth, AuthContext, adminModes } from '../auth/auth-context';
import { AdminOnly } from '../auth/auth.decorators';
import { ApiErrors, ApiSuccess, KEYED_ERRORS } from '../common/swagger';
import { CertificatesService } from './certificates.service';
import { RevokedCertificateDto } from './dto/certificate.dto';

@ApiTags('Admin')
@AdminOnly()
@Controller('admin/certificates')
export class AdminCertificatesController {
  constructor(private readonly certificates: CertificatesService) {}

  @Post(':id/revoke')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Revoke a certificate',
    description: 'Verification answers `valid: false` at once. Revoking again is harmless and keeps the first time.',
  })
  @ApiParam({ name: 'id', example: 'ECK-2026-7K3QX9M2PD' })
  @ApiSuccess(RevokedCertificateDto)
  @ApiErrors('certificate_not_found', 'admin_only', 'idempotency_key_reused', 'idempotency_request_in_progress', ...KEYED_ERRORS)
  revoke(@Auth() auth: AuthContext, @Param('id') id: string): Promise<RevokedCertificateDto> {
    return this.certificates.revoke(id, adminModes(auth));
  }
}
