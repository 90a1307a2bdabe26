import { Controller, Get, Headers, Inject, Ip, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { timingSafeEqual } from 'node:crypto';
import { AuthFailureLimiter } from '../auth/auth-failure-limiter';
import { Public } from '../auth/public.decorator';
import { RawResponse } from '../common/envelope.interceptor';
import { DomainError } from '../common/errors';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { MetricsService } from './metrics.service';

/** Prometheus scrape endpoint, outside /api, behind `Authorization: Bearer $METRICS_TOKEN` (absent without a token). */
@ApiExcludeController()
@Public()
@RawResponse()
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: MetricsService,
    private readonly failures: AuthFailureLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  async scrape(@Headers('authorization') authorization: string | undefined, @Ip() ip: string | undefined, @Res() res: Response): Promise<void> {
    const token = this.config.metricsToken;
    if (!token) throw new DomainError('route_not_found');
    const given = Buffer.from(authorization?.replace(/^Bearer\s+/i, '') ?? '');
    const expected = Buffer.from(token);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      // Counted with failed keys from the same address: guessing the token is limited like guessing a key.
      const refusal = await this.failures.refusal(
        ip,
        new DomainError('invalid_api_key', undefined, 'A valid metrics token is required (Authorization: Bearer …).'),
      );
      if (refusal.code === 'invalid_api_key') res.setHeader('WWW-Authenticate', 'Bearer');
      throw refusal;
    }
    res.setHeader('Content-Type', this.metrics.registry.contentType);
    res.send(await this.metrics.registry.metrics());
  }
}
