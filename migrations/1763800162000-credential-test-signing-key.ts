import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The key that signs test-mode certificates' credentials, apart from the production key so that nothing issued with
 * a test key can pass for a production credential. Test credentials carry no trust, so in every environment the key
 * is generated on first start and kept here (one row, like credential_signing_key).
 */
export class CredentialTestSigningKey1763800162000 implements MigrationInterface {
  name = 'CredentialTestSigningKey1763800162000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE credential_test_signing_key (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        private_jwk jsonb NOT NULL CHECK (private_jwk->>'kty' = 'OKP' AND private_jwk->>'crv' = 'Ed25519' AND private_jwk ? 'd' AND private_jwk ? 'x'),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE credential_test_signing_key`);
  }
}
