import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deliveries are driven by PostgreSQL: the worker's sweep finds due deliveries (pending, next attempt time or
 * creation passed) through a partial index, and `retry_base` is the attempt count at which the current retry
 * schedule started (a redelivery starts a new one), so the retry budget is read from the row, not from a queue job.
 */
export class DeliverySchedule1763800112000 implements MigrationInterface {
  name = 'DeliverySchedule1763800112000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_deliveries ADD COLUMN retry_base int NOT NULL DEFAULT 0 CHECK (retry_base >= 0)`);
    await q.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries ((coalesce(next_attempt_at, created_at)), id) WHERE status = 'pending'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhook_deliveries_due_idx`);
    await q.query(`ALTER TABLE webhook_deliveries DROP COLUMN retry_base`);
  }
}
