import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Contract section 15. Subscriptions keep the previous signing secret (sealed) until `previous_secret_expires_at`
 * during a rotation, and `failing_since` (the first failed attempt since the last success) for auto-disable.
 * Deliveries gain `skipped`: an event that matched a disabled subscription leaves a row that `recover` can send later.
 */
export class WebhookTrust1763800150000 implements MigrationInterface {
  name = 'WebhookTrust1763800150000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_subscriptions
        ADD COLUMN secret_previous_encrypted text,
        ADD COLUMN previous_secret_expires_at timestamptz,
        ADD COLUMN failing_since timestamptz,
        ADD CONSTRAINT webhook_subscriptions_previous_secret_check CHECK ((secret_previous_encrypted IS NULL) = (previous_secret_expires_at IS NULL))`);
    await q.query(`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_status_check`);
    await q.query(
      `ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('pending', 'delivered', 'failed', 'skipped'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE webhook_deliveries SET status = 'failed' WHERE status = 'skipped'`);
    await q.query(`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_status_check`);
    await q.query(`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('pending', 'delivered', 'failed'))`);
    await q.query(`
      ALTER TABLE webhook_subscriptions
        DROP CONSTRAINT webhook_subscriptions_previous_secret_check,
        DROP COLUMN failing_since,
        DROP COLUMN previous_secret_expires_at,
        DROP COLUMN secret_previous_encrypted`);
  }
}
