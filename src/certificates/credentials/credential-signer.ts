import { Inject, Injectable } from '@nestjs/common';
import { SignJWT } from 'jose';
import { DomainError } from '../../common/errors';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { Certificate } from '../certificates.repository';
import { CertificateUrls } from '../certificate.mapper';
import { openBadgeCredential } from './open-badge';
import { SigningKeyStore } from './signing-key.store';

export const VC_JWT_MEDIA_TYPE = 'application/vc+jwt';

/** Signs a certificate's Open Badges 3.0 credential as a VC-JWT (compact JWS, EdDSA over Ed25519). */
@Injectable()
export class CredentialSigner {
  private readonly urls: CertificateUrls;

  constructor(
    private readonly keys: SigningKeyStore,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.urls = new CertificateUrls(config.publicBaseUrl);
  }

  /**
   * The payload is the credential itself plus the JWT claims that mirror it (iss, jti, sub, nbf). No `iat` and no
   * `exp`: a certificate does not expire, and Ed25519 signatures are deterministic, so one certificate always gets the
   * same bytes under one key.
   */
  async sign(cert: Certificate): Promise<string> {
    if (cert.revokedAt) throw new DomainError('certificate_revoked');
    // Test certificates: the test key and issuer id, and a claim that says so, so none passes for a production one.
    const key = await this.keys.forMode(cert.mode);
    const vc = openBadgeCredential(cert, this.urls);
    return new SignJWT(cert.mode === 'test' ? { ...vc, test: true } : { ...vc })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'vc+jwt', kid: key.kid })
      .setIssuer(vc.issuer.id)
      .setJti(vc.id)
      .setSubject(vc.credentialSubject.id)
      .setNotBefore(Math.floor(Date.parse(vc.validFrom) / 1000))
      .sign(key.privateKey);
  }

  /** The public key set verifiers fetch (`/.well-known/jwks.json`): the production key, then the test key. */
  async jwks(): Promise<{ keys: object[] }> {
    const [live, test] = await Promise.all([this.keys.current(), this.keys.forMode('test')]);
    return { keys: [live.publicJwk, test.publicJwk] };
  }
}
