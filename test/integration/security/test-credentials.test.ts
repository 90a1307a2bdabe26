import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { startApp, TestApp } from '../../support/app';
import { createKey, createPartner, CreatedPartner } from '../../support/factories';
import { clientIps, issueCertificate } from '../certificate.helpers';

/**
 * Issue 26, finding 1: a certificate issued with a test key got a credential signed with the production key, under
 * the production issuer id (only issuer.name said "(test)"), and verified as valid like a live one. Since a partner
 * reports quiz results itself, any test key could mint signed credentials for any name and course. Test credentials
 * are now signed with a key of their own under a distinct issuer id, and every verification says `test`.
 */
let t: TestApp;
let testKey: CreatedPartner;
let liveKey: CreatedPartner;
beforeAll(async () => {
  t = await startApp({ TRUST_PROXY: '1' });
  testKey = await createPartner(t, { plan: 'enterprise' });
  liveKey = await createKey(t, testKey.partnerId, 'live');
});
afterAll(() => t.close());

const clientIp = clientIps('203.7');
const get = (path: string) => t.http.get(path, { headers: { 'X-Forwarded-For': clientIp() } });
const TEST_ISSUER = () => `${t.config.publicBaseUrl}/issuers/test`;

describe('test-mode credentials', () => {
  it('are signed with a test key of their own (its own kid in the JWKS) under a distinct issuer id, and say test: true', async () => {
    const testCert = await issueCertificate(t, testKey);
    const liveCert = await issueCertificate(t, liveKey);
    const testJwt = (await get(`/api/certificates/${testCert.certificateId}/credential`)).text;
    const liveJwt = (await get(`/api/certificates/${liveCert.certificateId}/credential`)).text;
    const jwks = (await get('/.well-known/jwks.json')).body as JSONWebKeySet;
    expect(jwks.keys).toHaveLength(2);
    const kids = jwks.keys.map((k) => k.kid);
    expect(new Set(kids).size).toBe(2);

    const testKid = decodeProtectedHeader(testJwt).kid;
    const liveKid = decodeProtectedHeader(liveJwt).kid;
    expect(testKid).not.toBe(liveKid);
    expect(kids.sort()).toEqual([testKid, liveKid].sort());

    const testPayload = decodeJwt(testJwt) as Record<string, any>;
    expect(testPayload.iss).toBe(TEST_ISSUER());
    expect(testPayload.issuer.id).toBe(TEST_ISSUER());
    expect(testPayload.test).toBe(true);
    const livePayload = decodeJwt(liveJwt) as Record<string, any>;
    expect(livePayload.iss).toBe(t.config.publicBaseUrl);
    expect(livePayload.issuer.id).toBe(t.config.publicBaseUrl);
    expect(livePayload).not.toHaveProperty('test');

    // A verifier that trusts the production issuer refuses the test credential; the production key alone cannot verify it.
    const keySet = createLocalJWKSet(jwks);
    await expect(jwtVerify(testJwt, keySet, { issuer: t.config.publicBaseUrl })).rejects.toThrow(/iss/);
    await jwtVerify(testJwt, keySet, { issuer: TEST_ISSUER() });
    await jwtVerify(liveJwt, keySet, { issuer: t.config.publicBaseUrl });
    const liveOnly = createLocalJWKSet({ keys: jwks.keys.filter((k) => k.kid === liveKid) });
    await expect(jwtVerify(testJwt, liveOnly)).rejects.toThrow();
  });

  it('verification answers test: true for a test certificate and test: false for a live one', async () => {
    const testCert = await issueCertificate(t, testKey);
    const liveCert = await issueCertificate(t, liveKey);
    const testAnswer = await get(`/api/certificates/verify/${testCert.certificateId}`);
    expect(testAnswer.status).toBe(200);
    expect(testAnswer.body).toMatchObject({ valid: true, test: true, certificate: { id: testCert.certificateId } });
    const liveAnswer = await get(`/api/certificates/verify/${liveCert.certificateId}`);
    expect(liveAnswer.body).toMatchObject({ valid: true, test: false, certificate: { id: liveCert.certificateId } });
  });

  it('the verification page says a test certificate is a test certificate, in its verdict', async () => {
    const testCert = await issueCertificate(t, testKey);
    const page = await get(`/verify/${testCert.certificateId}`);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<section class="verdict test"[^>]* data-test="true"/);
    expect(page.text).toContain('Test certificate: not a real one');
    const liveCert = await issueCertificate(t, liveKey);
    const livePage = await get(`/verify/${liveCert.certificateId}`);
    expect(livePage.text).toMatch(/data-test="false"/);
    expect(livePage.text).not.toContain('Test certificate');
  });
});
