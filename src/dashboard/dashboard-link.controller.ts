import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentScope } from '../auth/auth-context';
import { PlanFeature } from '../auth/auth.decorators';
import type { Scope } from '../common/scope';
import { ApiErrors, ApiSuccess, KEYED_ERRORS } from '../common/swagger';
import { DashboardAuthService } from './dashboard-auth.service';
import { DashboardLinkDto } from './dto/dashboard-link.dto';

@ApiTags('Partners')
@Controller('partners/me')
export class DashboardLinkController {
  constructor(private readonly auth: DashboardAuthService) {}

  @Post('dashboard-link')
  @HttpCode(201)
  @PlanFeature('account')
  @ApiOperation({
    summary: 'Get a sign-in link to the partner dashboard',
    description:
      "A single-use URL, valid 10 minutes, that opens the dashboard (`/dashboard`) for this key's partner and mode: usage, API keys, webhook endpoints and their delivery log, recent requests and bulk jobs. Opening it sets a session cookie for 12 hours. Treat the URL like a password: anyone who opens it first gets the session.",
  })
  @ApiSuccess(DashboardLinkDto, { status: 201 })
  @ApiErrors(...KEYED_ERRORS)
  create(@CurrentScope() scope: Scope) {
    return this.auth.createLink(scope);
  }
}
