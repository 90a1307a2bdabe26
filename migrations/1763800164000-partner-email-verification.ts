import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A partner's e-mail address is its own (unique among partners, whatever the case) and verified through a link sent
 * to it before production access. Only the link token's SHA-256 is stored; a link works once, until it expires.
 */
export class PartnerEmailVerification1763800164000 implements MigrationInterface {
  name = 'PartnerEmailVerification1763800164000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE partners
        ADD COLUMN email_verified_at timestamptz NULL,
        ADD COLUMN email_verification_hash char(64) NULL,
        ADD COLUMN email_verification_expires_at timestamptz NULL`);
    await q.query(`CREATE UNIQUE INDEX partners_email_uq ON partners (lower(email)) WHERE NOT is_operator`);
    await q.query(`CREATE UNIQUE INDEX partners_email_verification_uq ON partners (email_verification_hash) WHERE email_verification_hash IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX partners_email_verification_uq`);
    await q.query(`DROP INDEX partners_email_uq`);
    await q.query(`ALTER TABLE partners DROP COLUMN email_verified_at, DROP COLUMN email_verification_hash, DROP COLUMN email_verification_expires_at`);
  }
}
