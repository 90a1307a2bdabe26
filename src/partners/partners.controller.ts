import { Body, Controller, Get, HttpCode, Inject, Post, Query, Req } from '@nestjs/common';
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
import {
  AccessRequestCreatedDto,
  EmailVerifiedDto,
  PartnerProfileDto,
  ProductionAccessDto,
  RegisterPartnerDto,
  RegistrationDto,
  VerifyEmailQuery,
} from './dto/partner.dto';

// Verification links are 256-bit random: the limit only stops a client from hammering the lookup.
const VERIFY_EMAIL_PER_HOUR = 30;
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
    description:
      'No key needed. The response shows the test key once: store it. An e-mail address belongs to one partner (409 `email_already_registered`); a verification link is sent to it, and production access waits until it is opened. Limited to 5 registrations per hour per client IP.',
  })
  @ApiSuccess(RegistrationDto, { status: 201 })
  @ApiErrors('validation_failed', 'invalid_json', 'email_already_registered', 'rate_limited', 'unsupported_media_type', 'service_unavailable')
  async register(@Body() dto: RegisterPartnerDto, @Req() req: Request) {
    const { allowed, retryAfter } = await this.limiter.window('register', req.ip ?? 'unknown', this.config.limits.registrationsPerHour, 3600);
    if (!allowed)
      throw new DomainError('rate_limited', { limit_per_hour: this.config.limits.registrationsPerHour }, undefined, { 'Retry-After': String(retryAfter) });
    return this.partners.register(dto);
  }

  @Get('verify-email')
  @Public()
  @ApiOperation({
    summary: "Verify a partner's e-mail address (the link sent at registration)",
    description:
      'No key needed: this is the link mailed to the address given at registration, valid for 7 days and once. Production access needs a verified address. An unknown, used or expired link: 404 `verification_link_invalid`. Limited per client IP like registration.',
  })
  @ApiSuccess(EmailVerifiedDto)
  @ApiErrors('validation_failed', 'verification_link_invalid', 'rate_limited', 'service_unavailable')
  async verifyEmail(@Query() query: VerifyEmailQuery, @Req() req: Request) {
    const { allowed, retryAfter } = await this.limiter.window('verify-email', req.ip ?? 'unknown', VERIFY_EMAIL_PER_HOUR, 3600);
    if (!allowed) throw new DomainError('rate_limited', { limit_per_hour: VERIFY_EMAIL_PER_HOUR }, undefined, { 'Retry-After': String(retryAfter) });
    return this.partners.verifyEmail(query.token);
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
    description:
      'An admin reviews the request; approval issues a live key. One pending request at a time. Needs the e-mail address verified (403 `email_not_verified` until the link sent at registration is opened).',
  })
  @ApiSuccess(AccessRequestCreatedDto, { status: 202 })
  @ApiErrors('validation_failed', 'email_not_verified', 'production_access_already_requested', ...KEYED_ERRORS)
  requestProductionAccess(@Auth() auth: AuthContext, @Body() dto: ProductionAccessDto) {
    return this.access.request(auth.partnerId, dto.use_case);
  }
}
