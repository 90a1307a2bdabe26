import { canonicalJson, requestFingerprint } from '../../src/idempotency/fingerprint';

describe('idempotency fingerprint', () => {
  it('ignores object key order at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}');
    expect(requestFingerprint('POST', '/api/enroll', { a: 1, b: 2 })).toBe(requestFingerprint('post', '/api/enroll', { b: 2, a: 1 }));
  });

  it('differs by method, path and body', () => {
    const base = requestFingerprint('POST', '/api/enroll', { a: 1 });
    expect(requestFingerprint('POST', '/api/enroll', { a: 2 })).not.toBe(base);
    expect(requestFingerprint('POST', '/api/credits/topup', { a: 1 })).not.toBe(base);
    expect(requestFingerprint('PUT', '/api/enroll', { a: 1 })).not.toBe(base);
    expect(requestFingerprint('POST', '/api/enroll', { a: '1' })).not.toBe(base);
  });

  it('treats a missing body as an empty object', () => {
    expect(requestFingerprint('POST', '/x', undefined)).toBe(requestFingerprint('POST', '/x', {}));
  });
});
