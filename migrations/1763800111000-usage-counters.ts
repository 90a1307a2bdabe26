import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The monthly call count per partner and mode, written behind the Redis counter every few seconds, so the quota
 * survives Redis losing its data (a missing counter is restored from here).
 */
export class UsageCounters1763800111000 implements MigrationInterface {
  name = 'UsageCounters1763800111000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE usage_counters (
        partner_id int NOT NULL,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        month char(7) NOT NULL CHECK (month ~ '^[0-9]{4}-[0-9]{2}$'),
        calls bigint NOT NULL CHECK (calls >= 0),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (partner_id, mode, month)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE usage_counters`);
  }
}
