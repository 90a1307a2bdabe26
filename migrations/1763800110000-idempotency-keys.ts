import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency-Key outcomes in PostgreSQL, so they survive Redis losing its data. A row is written in the same
 * transaction as the write it guards (status and body still NULL: "applied, response not stored yet"), then
 * completed with the response right after. `body` is the sealed (encrypted) response envelope.
 */
export class IdempotencyKeys1763800110000 implements MigrationInterface {
  name = 'IdempotencyKeys1763800110000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE idempotency_keys (
        scope_key text PRIMARY KEY CHECK (length(scope_key) <= 400),
        fingerprint varchar(64) NOT NULL,
        status int CHECK (status BETWEEN 100 AND 599),
        body text,
        created_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz,
        CHECK ((status IS NULL) = (body IS NULL))
      )`);
    await q.query(`CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE idempotency_keys`);
  }
}
