import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Bulk enrolment rows a partner may have waiting (accepted, not yet processed) across its jobs of both modes, by
 * plan: background work is bounded per partner, so one partner cannot fill the queue. NULL would mean unlimited.
 */
export class BulkOutstandingRows1763800163000 implements MigrationInterface {
  name = 'BulkOutstandingRows1763800163000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE plans ADD COLUMN bulk_outstanding_rows int CHECK (bulk_outstanding_rows > 0)`);
    await q.query(`
      UPDATE plans SET bulk_outstanding_rows = CASE code WHEN 'starter' THEN 1000 WHEN 'growth' THEN 5000 WHEN 'enterprise' THEN 20000 END
       WHERE code IN ('starter', 'growth', 'enterprise')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE plans DROP COLUMN bulk_outstanding_rows`);
  }
}
