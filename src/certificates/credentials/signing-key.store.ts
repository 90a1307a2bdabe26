import { generateKeyPairSync } from 'node:crypto';
import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { calculateJwkThumbprint, importJWK, type CryptoKey, type JWK } from 'jose';
import type { Mode } from '../../common/scope';
import { AppConfig, Ed25519PrivateJwk } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { CertificatesRepository } from '../certificates.repository';

export interface SigningKey {
  /** RFC 7638 thumbprint of the public key: the JWS header's `kid` and the key's id in the JWKS. */
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

/**
 * The Ed25519 keys that sign credentials, one per mode. Live: CREDENTIAL_SIGNING_KEY when set (always in production),
 * otherwise the one generated on the first start of a development database and kept in it. Test: always generated
 * and kept in the database (test credentials carry no trust), so a test key can never mint what the production key
 * signs. Every instance and restart signs with the same keys.
 */
@Injectable()
export class SigningKeyStore implements OnApplicationBootstrap {
  private readonly logger = new Logger(SigningKeyStore.name);
  private readonly loading = new Map<Mode, Promise<SigningKey>>();

  constructor(
    private readonly repo: CertificatesRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Loads the keys at start-up, so a database gets its kept keys on the first start. */
  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([this.current(), this.forMode('test')]);
  }

  /** The production (live-mode) key. */
  current(): Promise<SigningKey> {
    return this.forMode('live');
  }

  forMode(mode: Mode): Promise<SigningKey> {
    let loading = this.loading.get(mode);
    if (!loading) {
      // A failed load (database away) is not remembered: the next request tries again.
      loading = this.load(mode).catch((e: unknown) => {
        this.loading.delete(mode);
        throw e;
      });
      this.loading.set(mode, loading);
    }
    return loading;
  }

  private async load(mode: Mode): Promise<SigningKey> {
    const configured = mode === 'live' ? this.config.credentials.signingKey : null;
    const jwk = configured ?? (await keptInDatabase(this.repo, mode));
    const publicJwk: JWK = { kty: 'OKP', crv: 'Ed25519', x: jwk.x };
    const kid = await calculateJwkThumbprint(publicJwk, 'sha256');
    if (mode === 'test') this.logger.log(`Signing test-mode credentials with the test key kept in the database (kid ${kid})`);
    else
      this.logger.log(
        configured
          ? `Signing credentials with CREDENTIAL_SIGNING_KEY (kid ${kid})`
          : `Signing credentials with the development key kept in the database (kid ${kid}); set CREDENTIAL_SIGNING_KEY in production`,
      );
    const privateKey = await importJWK({ ...jwk }, 'EdDSA');
    return { kid, privateKey, publicJwk: { ...publicJwk, kid, alg: 'EdDSA', use: 'sig' } };
  }
}

/**
 * The database's key of a mode, generated when there is none. Instances starting at once each offer a fresh key;
 * the singleton row admits one, the others' inserts do nothing (after waiting for the winner's commit), and every
 * instance then reads the winner.
 */
export async function keptInDatabase(repo: CertificatesRepository, mode: Mode = 'live'): Promise<Ed25519PrivateJwk> {
  const kept = await repo.keptSigningKey(mode);
  if (kept) return kept;
  const { x, d } = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  await repo.offerSigningKey({ kty: 'OKP', crv: 'Ed25519', x: x!, d: d! }, mode);
  const winner = await repo.keptSigningKey(mode);
  if (!winner) throw new Error(`the ${mode} signing key is empty right after an insert`);
  return winner;
}
