import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The key that signs portable certificates (Open Badges 3.0 credentials) when CREDENTIAL_SIGNING_KEY is not set,
 * which only development and test allow: generated on first start and kept here, so credentials stay verifiable
 * across restarts. A single row (the primary key can only be true): instances starting together insert with
 * ON CONFLICT DO NOTHING and all read the one row that won. Production takes its key from the environment.
 */
export class CredentialSigningKey1763800090000 implements MigrationInterface {
  name = 'CredentialSigningKey1763800090000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE credential_signing_key (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        private_jwk jsonb NOT NULL CHECK (private_jwk->>'kty' = 'OKP' AND private_jwk->>'crv' = 'Ed25519' AND private_jwk ? 'd' AND private_jwk ? 'x'),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE credential_signing_key`);
  }
}
