import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { randomChars } from '../common/ids';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';

const HOST_TOKEN_LENGTH = 40;
const TOKEN_SHAPE = /^[0-9A-Za-z_-]{32,128}$/;

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Compares a presented token with a stored SHA-256 hash in constant time. */
export function tokenMatches(presented: string | undefined, storedHash: string): boolean {
  if (!presented || !TOKEN_SHAPE.test(presented)) return false;
  return timingSafeEqual(Buffer.from(sha256Hex(presented), 'hex'), Buffer.from(storedHash, 'hex'));
}

export function isTokenShaped(value: unknown): value is string {
  return typeof value === 'string' && TOKEN_SHAPE.test(value);
}

/**
 * Host tokens are random and shown once (only the hash is stored).
 * Attendee tokens are an HMAC of (webinar, user) under a key derived from the service secret, so registering twice
 * returns the same personal link instead of silently invalidating the one already sent; only their hash is stored too.
 */
@Injectable()
export class WebinarTokens {
  private readonly attendeeKey: Buffer;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.attendeeKey = Buffer.from(hkdfSync('sha256', config.webhook.secretKey, 'webinars', 'attendee-join-token', 32));
  }

  newHostToken(): { token: string; hash: string } {
    const token = randomChars(HOST_TOKEN_LENGTH);
    return { token, hash: sha256Hex(token) };
  }

  attendeeToken(webinarId: string, userId: number): { token: string; hash: string } {
    const token = createHmac('sha256', this.attendeeKey).update(`${webinarId}:${userId}`).digest('base64url');
    return { token, hash: sha256Hex(token) };
  }
}
