import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { UsageLimiter } from './usage-limiter';

const WINDOW_SECONDS = 60;

/**
 * Failed key authentications (malformed or unknown keys) per client address: past the limit in a minute, the
 * refusal is 429 rate_limited with Retry-After instead of 401 for the rest of that minute. Only failures are
 * counted, and only failures are refused, so a valid key from the same address is never affected.
 */
@Injectable()
export class AuthFailureLimiter {
  private readonly limit: number;

  constructor(
    private readonly limiter: UsageLimiter,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.limit = config.limits.authFailuresPerMinute;
  }

  /**
   * Counts one failed authentication from `ip` and returns the error to answer with: `unauthorized` (by default
   * invalid_api_key) within the limit, 429 past it. Every kind of credential (keys, the metrics token) shares the count.
   */
  async refusal(ip: string | undefined, unauthorized = new DomainError('invalid_api_key')): Promise<DomainError> {
    let window: { allowed: boolean; retryAfter: number };
    try {
      window = await this.limiter.window('authfail', ip ?? 'unknown', this.limit, WINDOW_SECONDS);
    } catch {
      return unauthorized; // Redis down: refuse as usual, uncounted
    }
    if (window.allowed) return unauthorized;
    return new DomainError(
      'rate_limited',
      { failed_authentications_per_minute: this.limit },
      'Too many requests with an invalid API key or token from this address. Retry after the time in Retry-After.',
      { 'Retry-After': String(window.retryAfter) },
    );
  }
}
