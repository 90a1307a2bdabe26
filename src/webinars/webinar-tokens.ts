import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { randomChars } from '../common/ids';
import { SealedBox } from '../common/sealed-box';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';

const TOKEN_LENGTH = 40;
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

export interface IssuedToken {
  token: string;
  hash: string;
}

export interface IssuedAttendeeToken extends IssuedToken {
  sealed: string;
}

/**
 * Host and attendee tokens are random (the CSPRNG) and looked up by their SHA-256 hash. A host token is shown
 * once. An attendee token is also kept sealed (AES-256-GCM under a key derived from WEBHOOK_SECRET_KEY), so
 * registering the learner again returns the link already sent; the secret alone gives no way to a token.
 */
@Injectable()
export class WebinarTokens {
  private readonly box: SealedBox;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.box = new SealedBox(config.webhook.secretKey, 'webinars', 'attendee-link-tokens');
  }

  newHostToken(): IssuedToken {
    const token = randomChars(TOKEN_LENGTH);
    return { token, hash: sha256Hex(token) };
  }

  newAttendeeToken(): IssuedAttendeeToken {
    const token = randomChars(TOKEN_LENGTH);
    return { token, hash: sha256Hex(token), sealed: this.box.seal(token) };
  }

  /** The attendee token behind a sealed value, or null when it cannot be opened (sealed under another secret). */
  openAttendeeToken(sealed: string | null): string | null {
    if (!sealed) return null;
    try {
      const token = this.box.open(sealed);
      return isTokenShaped(token) ? token : null;
    } catch {
      return null;
    }
  }
}
