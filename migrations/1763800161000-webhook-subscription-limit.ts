import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook subscriptions per partner and mode, capped by plan: every event fans out to each matching subscription,
 * so an unbounded number of them turned one call into as many outbound POSTs. NULL would mean unlimited.
 */
export class WebhookSubscriptionLimit1763800161000 implements MigrationInterface {
  name = 'WebhookSubscriptionLimit1763800161000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE plans ADD COLUMN webhook_subscriptions int CHECK (webhook_subscriptions > 0)`);
    await q.query(`
      UPDATE plans SET webhook_subscriptions = CASE code WHEN 'starter' THEN 2 WHEN 'growth' THEN 20 WHEN 'enterprise' THEN 100 END
       WHERE code IN ('starter', 'growth', 'enterprise')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE plans DROP COLUMN webhook_subscriptions`);
  }
}
