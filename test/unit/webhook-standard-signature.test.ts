import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { verifyStandardSignature } from '../../src/webhooks/verify-signature';
import { signatureHeaders } from '../../src/webhooks/worker/signatures';
import { describeDuration } from '../../src/webhooks/worker/delivery-store';

const secret = 'whsec-unit-test-0123456789 ✓';
const previous = 'previous-secret-0123456789';
const body = '{"event":"user.registered","timestamp":"2025-11-22T10:00:00.000Z","webhook_id":"whd_x","data":{"name":"Zoë"}}';
const now = Math.floor(Date.now() / 1000);
const asLibrarySecret = (s: string) => `whsec_${Buffer.from(s, 'utf8').toString('base64')}`;
const std = (h: Record<string, string>) => ({ id: h['webhook-id'], timestamp: h['webhook-timestamp'], signature: h['webhook-signature'] });

describe('signatureHeaders (contract section 15)', () => {
  it('signs "{id}.{timestamp}.{body}" so the standardwebhooks library verifies it with whsec_ + base64(secret)', () => {
    const headers = signatureHeaders('whd_x', body, { current: secret, previous: null }, now);
    expect(headers['webhook-id']).toBe('whd_x');
    expect(headers['webhook-timestamp']).toBe(String(now));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(asLibrarySecret(secret)).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(asLibrarySecret(previous)).verify(body, headers)).toThrow();
    expect(headers['x-svc-signature']).toBe(`sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex')}`);
    expect(headers).not.toHaveProperty('x-svc-signature-previous');
  });

  it('carries both signatures during an overlap, new first, and X-SVC-Signature-Previous', () => {
    const headers = signatureHeaders('whd_x', body, { current: secret, previous }, now);
    const parts = headers['webhook-signature'].split(' ');
    expect(parts).toHaveLength(2);
    expect(parts[0]).toBe(signatureHeaders('whd_x', body, { current: secret, previous: null }, now)['webhook-signature']);
    expect(parts[1]).toBe(signatureHeaders('whd_x', body, { current: previous, previous: null }, now)['webhook-signature']);
    for (const s of [secret, previous]) expect(new Webhook(asLibrarySecret(s)).verify(body, headers)).toBeTruthy();
    expect(headers['x-svc-signature-previous']).toBe(`sha256=${createHmac('sha256', previous).update(body).digest('hex')}`);
  });
});

describe('verifyStandardSignature (the receiver helper docs/webhooks.md shows)', () => {
  const headers = signatureHeaders('whd_x', body, { current: secret, previous }, now);

  it('accepts either signature, with the body as string or Buffer', () => {
    expect(verifyStandardSignature(body, std(headers), secret)).toBe(true);
    expect(verifyStandardSignature(Buffer.from(body), std(headers), previous)).toBe(true);
  });

  it('refuses another secret, a changed body, id or timestamp', () => {
    expect(verifyStandardSignature(body, std(headers), 'another-secret-0123456')).toBe(false);
    expect(verifyStandardSignature(body + ' ', std(headers), secret)).toBe(false);
    expect(verifyStandardSignature(body, { ...std(headers), id: 'whd_y' }, secret)).toBe(false);
    expect(verifyStandardSignature(body, { ...std(headers), timestamp: String(now - 1) }, secret)).toBe(false);
  });

  it('refuses a timestamp outside the replay window (5 minutes by default), like the library', () => {
    const old = signatureHeaders('whd_x', body, { current: secret, previous: null }, now - 301);
    expect(verifyStandardSignature(body, std(old), secret)).toBe(false);
    expect(() => new Webhook(asLibrarySecret(secret)).verify(body, old)).toThrow(/timestamp/i);
    const recent = signatureHeaders('whd_x', body, { current: secret, previous: null }, now - 290);
    expect(verifyStandardSignature(body, std(recent), secret)).toBe(true);
  });

  it.each([
    {},
    { id: 'whd_x', timestamp: 'abc', signature: 'v1,AAAA' },
    { id: 'whd_x', timestamp: String(now), signature: 'v2,AAAA' },
    { id: 'whd_x', timestamp: String(now), signature: 'v1,' },
  ])('refuses malformed headers %p', (h) => {
    expect(verifyStandardSignature(body, h, secret)).toBe(false);
  });
});

describe('describeDuration (disabled_reason)', () => {
  it.each([
    [432_000_000, '5 days'],
    [86_400_000, '1 day'],
    [5_400_000, '90 minutes'],
    [2000, '2 seconds'],
    [1500, '1500 ms'],
  ])('%p ms reads %p', (ms, text) => {
    expect(describeDuration(ms)).toBe(text);
  });
});
