import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { KeysService } from '../api-keys/keys.service';
import { Auth, AuthContext, adminModes } from '../auth/auth-context';
import { AdminOnly, LiveAdminOnly, liveAdminRequired } from '../auth/auth.decorators';
import { intIdParam, prefixedIdParam } from '../common/params';
import { ApiErrors, ApiSuccess, KEYED_ERRORS } from '../common/swagger';
import {
  AccessRequestListDto,
  AdminPartnerDto,
  ApprovalDto,
  CreateKeyDto,
  IssuedKeyDto,
  KeyViewDto,
  ListAccessRequestsQuery,
  RejectRequestDto,
  RejectionDto,
  UpdatePartnerDto,
} from './dto/partner.dto';
import { PartnersService } from './partners.service';
import { ProductionAccessService } from './production-access.service';

const partnerId = intIdParam('id', { message: 'id must be a partner id (integer)' });
// Reject validates a body first (a bad body is 400 whatever the id): ProductionAccessService checks its id.
const requestId = prefixedIdParam('par', 'production_access_request_not_found');
const ADMIN_ERRORS = ['admin_only', ...KEYED_ERRORS] as const;

@ApiTags('Admin')
@AdminOnly()
@Controller('admin')
export class AdminPartnersController {
  constructor(
    private readonly partners: PartnersService,
    private readonly access: ProductionAccessService,
    private readonly keys: KeysService,
  ) {}

  @Get('production-access')
  @ApiOperation({ summary: 'List production access requests (filter by status)' })
  @ApiSuccess(AccessRequestListDto)
  @ApiErrors('validation_failed', ...ADMIN_ERRORS)
  listRequests(@Query() query: ListAccessRequestsQuery) {
    return this.access.list(query);
  }

  @Post('production-access/:id/approve')
  @HttpCode(200)
  @LiveAdminOnly()
  @ApiOperation({ summary: 'Approve a request: issues the partner a live key, shown once in this response' })
  @ApiSuccess(ApprovalDto)
  @ApiErrors('production_access_request_not_found', 'request_already_reviewed', ...ADMIN_ERRORS)
  approve(@Param('id', requestId) id: string) {
    return this.access.approve(id);
  }

  @Post('production-access/:id/reject')
  @HttpCode(200)
  @LiveAdminOnly()
  @ApiOperation({ summary: 'Reject a request with a reason' })
  @ApiSuccess(RejectionDto)
  @ApiErrors('validation_failed', 'production_access_request_not_found', 'request_already_reviewed', ...ADMIN_ERRORS)
  reject(@Param('id') id: string, @Body() dto: RejectRequestDto) {
    return this.access.reject(id, dto.reason);
  }

  @Get('partners/:id')
  @ApiOperation({ summary: "A partner's account and keys (prefixes only)" })
  @ApiParam({ name: 'id', type: Number })
  @ApiSuccess(AdminPartnerDto)
  @ApiErrors('validation_failed', 'partner_not_found', ...ADMIN_ERRORS)
  getPartner(@Param('id', partnerId) id: number) {
    return this.partners.adminView(id);
  }

  @Patch('partners/:id')
  @LiveAdminOnly()
  @ApiOperation({
    summary: "Change a partner's plan, status (active / suspended) or allowed origins",
    description: 'Takes effect on every instance within 5 seconds.',
  })
  @ApiParam({ name: 'id', type: Number })
  @ApiSuccess(AdminPartnerDto)
  @ApiErrors('validation_failed', 'partner_not_found', ...ADMIN_ERRORS)
  updatePartner(@Param('id', partnerId) id: number, @Body() dto: UpdatePartnerDto) {
    return this.partners.update(id, dto);
  }

  @Post('partners/:id/keys')
  @ApiOperation({ summary: 'Issue a new key for a partner (shown once)' })
  @ApiParam({ name: 'id', type: Number })
  @ApiSuccess(IssuedKeyDto, { status: 201 })
  @ApiErrors('validation_failed', 'partner_not_found', ...ADMIN_ERRORS)
  async createKey(@Auth() auth: AuthContext, @Param('id', partnerId) id: number, @Body() dto: CreateKeyDto) {
    if (!adminModes(auth).includes(dto.mode)) throw liveAdminRequired();
    await this.partners.get(id);
    return this.keys.issue(null, id, dto.mode);
  }

  @Post('keys/:id/revoke')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke a key', description: 'Refused with 401 revoked_api_key on every instance within 5 seconds.' })
  @ApiSuccess(KeyViewDto)
  @ApiErrors('api_key_not_found', ...ADMIN_ERRORS)
  revokeKey(@Auth() auth: AuthContext, @Param('id', prefixedIdParam('key', 'api_key_not_found')) id: string) {
    return this.keys.revoke(id, adminModes(auth));
  }
}
