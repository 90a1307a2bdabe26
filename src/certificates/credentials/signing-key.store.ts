import { generateKeyPairSync } from 'node:crypto';
import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { calculateJwkThumbprint, importJWK, type CryptoKey, type JWK } from 'jose';
import { DataSource } from 'typeorm';
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
 * The Ed25519 key that signs credentials: CREDENTIAL_SIGNING_KEY when set (always in production), otherwise the one
 * generated on the first start of a development database and kept in it, so every instance and restart signs with it.
 */
@Injectable()
export class SigningKeyStore implements OnApplicationBootstrap {
  private readonly logger = new Logger(SigningKeyStore.name);
  private loading: Promise<SigningKey> | null = null;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Loads the key at start-up, so a development database gets its key on the first start. */
  async onApplicationBootstrap(): Promise<void> {
    await this.current();
  }

  current(): Promise<SigningKey> {
    // A failed load (database away) is not remembered: the next request tries again.
    this.loading ??= this.load().catch((e: unknown) => {
      this.loading = null;
      throw e;
    });
    return this.loading;
  }

  private async load(): Promise<SigningKey> {
    const configured = this.config.credentials.signingKey;
    const jwk = configured ?? (await keptInDatabase(this.dataSource));
    const publicJwk: JWK = { kty: 'OKP', crv: 'Ed25519', x: jwk.x };
    const kid = await calculateJwkThumbprint(publicJwk, 'sha256');
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
 * The database's key, generated when there is none. Instances starting at once each offer a fresh key; the
 * singleton row admits one, the others' inserts do nothing (after waiting for the winner's commit), and every
 * instance then reads the winner.
 */
export async function keptInDatabase(dataSource: DataSource): Promise<Ed25519PrivateJwk> {
  const repo = new CertificatesRepository(dataSource);
  const kept = await repo.keptSigningKey();
  if (kept) return kept;
  const { x, d } = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  await repo.offerSigningKey({ kty: 'OKP', crv: 'Ed25519', x: x!, d: d! });
  const winner = await repo.keptSigningKey();
  if (!winner) throw new Error('credential_signing_key is empty right after an insert');
  return winner;
}
