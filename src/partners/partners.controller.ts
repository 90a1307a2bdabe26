import { Body, Controller, Get, HttpCode, Inject, Post, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Auth, AuthContext } from '../auth/auth-context';
import { PlanFeature } from '../auth/auth.decorators';
import { Public } from '../auth/public.decorator';
import { UsageLimiter } from '../auth/usage-limiter';
import { DomainError } from '../common/errors';
import { ApiErrors, ApiSuccess, KEYED_ERRORS } from '../common/swagger';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { AccessRequestCreatedDto, PartnerProfileDto, ProductionAccessDto, RegisterPartnerDto, RegistrationDto } from './dto/partner.dto';
import { PartnersService } from './partners.service';
import { ProductionAccessService } from './production-access.service';

@ApiTags('Partners')
@Controller('partners')
export class PartnersController {
  constructor(
    private readonly partners: PartnersService,
    private readonly access: ProductionAccessService,
    private readonly limiter: UsageLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('register')
  @Public()
  @ApiOperation({
    summary: 'Register a partner application and get a test key at once',
    description: 'No key needed. The response shows the test key once: store it. Limited to 5 registrations per hour per client IP.',
  })
  @ApiSuccess(RegistrationDto, { status: 201 })
  @ApiErrors('validation_failed', 'invalid_json', 'rate_limited', 'unsupported_media_type', 'service_unavailable')
  async register(@Body() dto: RegisterPartnerDto, @Req() req: Request) {
    const { allowed, retryAfter } = await this.limiter.window('register', req.ip ?? 'unknown', this.config.limits.registrationsPerHour, 3600);
    if (!allowed)
      throw new DomainError('rate_limited', { limit_per_hour: this.config.limits.registrationsPerHour }, undefined, { 'Retry-After': String(retryAfter) });
    return this.partners.register(dto);
  }

  @Get('me')
  @PlanFeature('account')
  @ApiOperation({ summary: "The calling partner's profile, plan, key mode, this month's usage and allowed origins" })
  @ApiSuccess(PartnerProfileDto)
  @ApiErrors(...KEYED_ERRORS)
  me(@Auth() auth: AuthContext) {
    return this.partners.me(auth);
  }

  @Post('me/production-access')
  @HttpCode(202)
  @PlanFeature('account')
  @ApiOperation({
    summary: 'Ask for production (live) access',
    description: 'An admin reviews the request; approval issues a live key. One pending request at a time.',
  })
  @ApiSuccess(AccessRequestCreatedDto, { status: 202 })
  @ApiErrors('validation_failed', 'production_access_already_requested', ...KEYED_ERRORS)
  requestProductionAccess(@Auth() auth: AuthContext, @Body() dto: ProductionAccessDto) {
    return this.access.request(auth.partnerId, dto.use_case);
  }
}
