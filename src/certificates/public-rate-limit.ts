import { Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { UsageLimiter } from '../auth/usage-limiter';
import { DomainError } from '../common/errors';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';

/** Keyless certificate routes count per client IP (one counter per route), never against a partner's quota. */
@Injectable()
export class PublicRateLimit {
  constructor(
    private readonly limiter: UsageLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Throws 429 `rate_limited` (with Retry-After) once the client IP has used this route's minute. */
  async spend(route: string, req: Request): Promise<void> {
    const limit = this.config.limits.verificationsPerMinute;
    const { allowed, retryAfter } = await this.limiter.window(route, req.ip ?? 'unknown', limit, 60);
    if (!allowed) throw new DomainError('rate_limited', { limit_per_minute: limit }, undefined, { 'Retry-After': String(retryAfter) });
  }
}
