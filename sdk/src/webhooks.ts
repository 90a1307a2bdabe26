import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent } from './types';

/** Node's `req.headers`, a Fetch `Headers`, or any object of header names (in any case) to values. */
export type HeadersLike = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** How far `webhook-timestamp` may be from this machine's clock, either way (replay protection). Default 300. */
  toleranceSeconds?: number;
  /** The current time, for tests. */
  now?: Date;
}

export type WebhookVerificationReason = 'missing_header' | 'invalid_signature' | 'timestamp_out_of_tolerance' | 'invalid_payload';

/** The delivery is not proven to come from the service unaltered and recently: answer 400 and do not act on it. */
export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * Checks a delivery and returns its typed event. Both signatures must hold: `X-SVC-Signature` (HMAC-SHA256 of the body,
 * hex) and the Standard Webhooks `webhook-signature` (over `{id}.{timestamp}.{body}`, base64), whose timestamp must be
 * within the tolerance. During a rotation the service signs with the new and the previous secret, so a receiver holding
 * either one verifies; `secret` may also list several (the receiver's own rotation).
 */
export function verify(rawBody: string | Uint8Array, headers: HeadersLike, secret: string | readonly string[], options: VerifyOptions = {}): WebhookEvent {
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const secrets = typeof secret === 'string' ? [secret] : [...secret];
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s.length === 0))
    throw new TypeError('webhooks.verify needs the subscription secret');
  const get = headerReader(headers);
  const id = required(get, 'webhook-id');
  const timestamp = required(get, 'webhook-timestamp');
  const standard = required(get, 'webhook-signature');
  const svc = required(get, 'x-svc-signature');

  const seconds = /^\d+$/.test(timestamp) ? Number(timestamp) : NaN;
  const now = (options.now ?? new Date()).getTime() / 1000;
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!Number.isFinite(seconds) || Math.abs(now - seconds) > tolerance) {
    throw new WebhookVerificationError('timestamp_out_of_tolerance', `webhook-timestamp is more than ${tolerance} s away from now`);
  }

  const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), body]);
  const offered = standard.split(' ').flatMap((s) => (s.startsWith('v1,') ? [s.slice(3)] : []));
  if (!secrets.some((s) => offered.some((sig) => safeEqual(sig, hmac(s, signed).toString('base64'))))) {
    throw new WebhookVerificationError('invalid_signature', 'webhook-signature does not match the body with this secret');
  }
  const svcOffered = [svc, get('x-svc-signature-previous')].filter((s): s is string => s !== undefined);
  if (!secrets.some((s) => svcOffered.some((sig) => safeEqual(sig, `sha256=${hmac(s, body).toString('hex')}`)))) {
    throw new WebhookVerificationError('invalid_signature', 'X-SVC-Signature does not match the body with this secret');
  }

  let event: unknown;
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'the body is not JSON');
  }
  const envelope = event as { event?: unknown; webhook_id?: unknown } | null;
  if (typeof envelope?.event !== 'string' || envelope.webhook_id !== id) {
    throw new WebhookVerificationError('invalid_payload', 'the body is not an event envelope for this webhook-id');
  }
  return event as WebhookEvent;
}

function hmac(secret: string, data: Buffer): Buffer {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(data).digest();
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function headerReader(headers: HeadersLike): (name: string) => string | undefined {
  if (typeof (headers as Headers).get === 'function' && typeof (headers as Headers).has === 'function') {
    const h = headers as Headers;
    return (name) => h.get(name) ?? undefined;
  }
  const lower = new Map(Object.entries(headers as Record<string, string | string[] | undefined>).map(([k, v]) => [k.toLowerCase(), v]));
  return (name) => {
    const value = lower.get(name);
    return Array.isArray(value) ? value.join(', ') : value;
  };
}

function required(get: (name: string) => string | undefined, name: string): string {
  const value = get(name);
  if (!value) throw new WebhookVerificationError('missing_header', `the ${name} header is missing`);
  return value;
}

export const webhooks = { verify };
