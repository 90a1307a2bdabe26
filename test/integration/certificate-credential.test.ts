import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { DataSource } from 'typeorm';
import { CertificatesRepository } from '../../src/certificates/certificates.repository';
import { keptInDatabase } from '../../src/certificates/credentials/signing-key.store';
import { dataSourceOptions, runMigrations } from '../../src/database/data-source';
import { dropDatabase, ensureDatabase } from '../../src/database/ensure-database';
import { startApp, TestApp } from '../support/app';
import { createAdmin, createKey, createPartner, CreatedPartner } from '../support/factories';
import { issueCertificate, clientIps } from './certificate.helpers';

const LIMIT = 5;
let t: TestApp;
let partner: CreatedPartner;
let admin: CreatedPartner;

beforeAll(async () => {
  t = await startApp({ TRUST_PROXY: '1', VERIFY_LIMIT_PER_MINUTE: String(LIMIT) });
  partner = await createPartner(t);
  admin = await createAdmin(t);
});
afterAll(() => t.close());

const clientIp = clientIps('203.0');

function credential(id: string, ip = clientIp()) {
  return t.http.get(`/api/certificates/${encodeURIComponent(id)}/credential`, { headers: { 'X-Forwarded-For': ip } });
}

/** The issuer id of test-mode credentials (live ones are issued by the public origin itself). */
const testIssuer = (base = t.config.publicBaseUrl) => `${base}/issuers/test`;

/** Verifies as a third party would: jose against the served key set, nothing else (test credentials by default). */
function verifyAsThirdParty(jwt: string, base = t.baseUrl, issuer = testIssuer()) {
  const jwks = createRemoteJWKSet(new URL(`${base}/.well-known/jwks.json`), { headers: { 'X-Forwarded-For': clientIp() } });
  return jwtVerify(jwt, jwks, { issuer, algorithms: ['EdDSA'], typ: 'vc+jwt' });
}

describe('GET /api/certificates/{cert_id}/credential', () => {
  it('is a VC-JWT whose Open Badges 3.0 payload verifies with jose against the JWKS and carries every field', async () => {
    const cert = await issueCertificate(t, partner);
    const res = await credential(cert.certificateId);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vc+jwt');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.text).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);

    const keySet = await t.http.get('/.well-known/jwks.json', { headers: { 'X-Forwarded-For': clientIp() } });
    // The test-mode key, after the production one.
    const key = keySet.body.keys[1];
    const { payload, protectedHeader } = await verifyAsThirdParty(res.text);
    expect(protectedHeader).toEqual({ alg: 'EdDSA', typ: 'vc+jwt', kid: key.kid });

    const base = t.config.publicBaseUrl;
    const credentialId = `${base}/api/certificates/${cert.certificateId}/credential`;
    const subjectId = payload.sub as string;
    expect(subjectId).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(payload).toEqual({
      '@context': ['https://www.w3.org/ns/credentials/v2', 'https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json'],
      id: credentialId,
      type: ['VerifiableCredential', 'OpenBadgeCredential'],
      issuer: { id: testIssuer(), type: ['Profile'], name: 'Learning Platform (test)', url: base },
      validFrom: `${cert.issuedAt}T00:00:00Z`,
      name: `Certificate of Completion: ${cert.courseTitle}`,
      credentialSubject: {
        id: subjectId,
        type: ['AchievementSubject'],
        name: cert.holderName,
        achievement: {
          id: `${base}/preview/courses/${cert.courseId}`,
          type: ['Achievement'],
          name: cert.courseTitle,
          description: `Completion of the course "${cert.courseTitle}" on Learning Platform (test).`,
          criteria: { narrative: 'Complete every topic of the course and pass every quiz it contains.' },
        },
      },
      iss: testIssuer(),
      test: true,
      jti: credentialId,
      sub: subjectId,
      nbf: Date.parse(`${cert.issuedAt}T00:00:00Z`) / 1000,
    });
    // Nothing about the learner beyond the certificate's own fields.
    for (const personal of [cert.email, cert.externalUserId]) expect(JSON.stringify(payload)).not.toContain(personal);
  });

  it('answers the same bytes every time, for the id typed in lower case too', async () => {
    const cert = await issueCertificate(t, partner);
    const first = await credential(cert.certificateId);
    const again = await credential(cert.certificateId.toLowerCase());
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
  });

  it('gives each certificate its own subject id and names live certificates after the plain platform', async () => {
    const live = await createKey(t, partner.partnerId, 'live');
    const a = await issueCertificate(t, live);
    const b = await issueCertificate(t, live);
    const pa = (await verifyAsThirdParty((await credential(a.certificateId)).text, t.baseUrl, t.config.publicBaseUrl)).payload as Record<string, any>;
    const pb = (await verifyAsThirdParty((await credential(b.certificateId)).text, t.baseUrl, t.config.publicBaseUrl)).payload as Record<string, any>;
    expect(pa.issuer.name).toBe('Learning Platform');
    expect(pa.sub).not.toBe(pb.sub);
  });

  it('answers 410 certificate_revoked once the certificate is revoked', async () => {
    const cert = await issueCertificate(t, partner);
    expect((await credential(cert.certificateId)).status).toBe(200);
    expect((await admin.http.post(`/api/admin/certificates/${cert.certificateId}/revoke`)).status).toBe(200);
    const res = await credential(cert.certificateId);
    expect(res.status).toBe(410);
    expect(res.body).toMatchObject({ status: 'error', error: { code: 'certificate_revoked' } });
  });

  it.each(['TST-2026-0000000000', 'not-a-certificate', "TST-2026-' OR 1=1--"])('answers 404 certificate_not_found for %p', async (id) => {
    const res = await credential(id);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ status: 'error', error: { code: 'certificate_not_found' } });
  });

  it('is rate-limited per client IP (429 rate_limited with Retry-After), apart from other IPs', async () => {
    const ip = clientIp();
    for (let i = 0; i < LIMIT; i++) expect((await credential('TST-2026-0000000000', ip)).status).toBe(404);
    const limited = await credential('TST-2026-0000000000', ip);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await credential('TST-2026-0000000000', clientIp())).status).toBe(404);
  });

  it('cannot be altered: a payload changed after signing fails verification', async () => {
    const cert = await issueCertificate(t, partner);
    const [h, p, s] = (await credential(cert.certificateId)).text.split('.');
    const forged = JSON.parse(Buffer.from(p, 'base64url').toString());
    forged.credentialSubject.name = 'Mallory';
    await expect(verifyAsThirdParty([h, Buffer.from(JSON.stringify(forged)).toString('base64url'), s].join('.'))).rejects.toThrow(/signature/i);
  });
});

describe('GET /.well-known/jwks.json', () => {
  it('serves two Ed25519 public keys, production then test (no private part), cacheable, readable from any origin', async () => {
    const res = await t.http.get('/.well-known/jwks.json', { headers: { 'X-Forwarded-For': clientIp(), Origin: 'https://wallet.example' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.body.keys).toHaveLength(2);
    for (const key of res.body.keys) {
      expect(key).toEqual({
        kty: 'OKP',
        crv: 'Ed25519',
        x: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        kid: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        alg: 'EdDSA',
        use: 'sig',
      });
      // kid is the RFC 7638 thumbprint of the key.
      const thumbprint = createHash('sha256')
        .update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x: key.x }))
        .digest('base64url');
      expect(key.kid).toBe(thumbprint);
    }
    expect(res.body.keys[0].kid).not.toBe(res.body.keys[1].kid);
  });

  it("keeps the development key across restarts: a second instance serves the same key and verifies the first one's credentials", async () => {
    const cert = await issueCertificate(t, partner);
    const jwt = (await credential(cert.certificateId)).text;
    const second = await startApp({ TRUST_PROXY: '1' });
    try {
      const [a, b] = await Promise.all([t, second].map((app) => app.http.get('/.well-known/jwks.json', { headers: { 'X-Forwarded-For': clientIp() } })));
      expect(b.body).toEqual(a.body);
      await expect(verifyAsThirdParty(jwt, second.baseUrl)).resolves.toBeDefined();
      expect(await t.db.query('SELECT count(*)::int AS n FROM credential_signing_key')).toEqual([{ n: 1 }]);
      expect(await t.db.query('SELECT count(*)::int AS n FROM credential_test_signing_key')).toEqual([{ n: 1 }]);
    } finally {
      await second.close();
    }
  });
});

describe('CREDENTIAL_SIGNING_KEY', () => {
  it('signs with the configured key (PKCS#8 PEM) and publishes its public half', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const configured = await startApp({ TRUST_PROXY: '1', CREDENTIAL_SIGNING_KEY: pem });
    try {
      const live = await createKey(configured, partner.partnerId, 'live');
      const cert = await issueCertificate(configured, live);
      const jwt = (await configured.http.get(`/api/certificates/${cert.certificateId}/credential`, { headers: { 'X-Forwarded-For': clientIp() } })).text;
      const jwks = await configured.http.get('/.well-known/jwks.json', { headers: { 'X-Forwarded-For': clientIp() } });
      expect(jwks.body.keys[0].x).toBe(publicKey.export({ format: 'jwk' }).x);
      expect(decodeProtectedHeader(jwt).kid).toBe(jwks.body.keys[0].kid);
      await expect(verifyAsThirdParty(jwt, configured.baseUrl, configured.config.publicBaseUrl)).resolves.toBeDefined();
      // A verifier holding the development key set refuses it.
      await expect(verifyAsThirdParty(jwt, t.baseUrl, configured.config.publicBaseUrl)).rejects.toThrow();
    } finally {
      await configured.close();
    }
  });
});

describe('the development key kept in the database', () => {
  // A database of its own: the run's shared one already has its key.
  const url = (() => {
    const u = new URL(process.env.DATABASE_URL!);
    u.pathname = `${u.pathname}_key_${randomBytes(3).toString('hex')}`;
    return u.toString();
  })();

  it('ends with ONE key when several instances start at once on a database without one', async () => {
    await ensureDatabase(url);
    await runMigrations(url);
    // One pool per simulated instance, as separate processes would have.
    const instances = await Promise.all(Array.from({ length: 6 }, () => new DataSource({ ...dataSourceOptions(url, 1) }).initialize()));
    try {
      for (let round = 0; round < 5; round++) {
        await instances[0].query('DELETE FROM credential_signing_key');
        const keys = await Promise.all(instances.map((ds) => keptInDatabase(new CertificatesRepository(ds))));
        expect(new Set(keys.map((k) => k.x)).size).toBe(1);
        expect(new Set(keys.map((k) => k.d)).size).toBe(1);
        const rows: Array<{ x: string }> = await instances[0].query(`SELECT private_jwk->>'x' AS x FROM credential_signing_key`);
        expect(rows).toEqual([{ x: keys[0].x }]);
      }
    } finally {
      await Promise.all(instances.map((ds) => ds.destroy()));
      await dropDatabase(url);
    }
  });
});
