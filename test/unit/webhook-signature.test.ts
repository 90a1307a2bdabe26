import { createHmac } from 'node:crypto';
import { verifySignature } from '../../src/webhooks/verify-signature';

const secret = 'whsec-unit-test-0123456789';
const body = Buffer.from('{"event":"user.registered","timestamp":"2025-11-22T10:00:00.000Z","webhook_id":"whd_x","data":{"name":"Zoë"}}');
const sign = (b: Buffer | string, s = secret) => `sha256=${createHmac('sha256', s).update(b).digest('hex')}`;

describe('verifySignature', () => {
  it('accepts the HMAC-SHA256 of the raw body, as Buffer or string', () => {
    expect(verifySignature(body, sign(body), secret)).toBe(true);
    expect(verifySignature(body.toString('utf8'), sign(body), secret)).toBe(true);
  });

  it('accepts uppercase hex', () => {
    expect(verifySignature(body, sign(body).toUpperCase().replace('SHA256=', 'sha256='), secret)).toBe(true);
  });

  it('rejects a different secret, a changed body, or re-serialised JSON', () => {
    expect(verifySignature(body, sign(body, 'another-secret-0123456'), secret)).toBe(false);
    expect(verifySignature(Buffer.concat([body, Buffer.from(' ')]), sign(body), secret)).toBe(false);
    expect(verifySignature(JSON.stringify(JSON.parse(body.toString()), null, 2), sign(body), secret)).toBe(false);
  });

  it.each([undefined, '', 'sha256=', 'sha1=abcd', 'sha256=zz', `sha256=${'a'.repeat(63)}`, `md5=${'a'.repeat(64)}`])(
    'rejects the malformed header %p',
    (header) => {
      expect(verifySignature(body, header, secret)).toBe(false);
    },
  );
});
