import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The partner with its plan's terms, as one view the partners feature declares for the api-keys feature: the key
 * lookup (every request whose key is not cached) reads a key, its partner and its plan in one statement, and the
 * partners feature depends on api-keys, so api-keys cannot ask PartnersService. PostgreSQL inlines the view, so the
 * lookup's plan is the JOIN it replaces. A migration that changes a column listed here recreates the view.
 */
export class PartnerAccountsView1763800430000 implements MigrationInterface {
  name = 'PartnerAccountsView1763800430000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE VIEW partner_accounts AS
      SELECT p.id AS partner_id, p.name, p.status, p.allowed_origins,
             pl.code AS plan_code, pl.name AS plan_name, pl.monthly_quota, pl.rate_limit_per_second, pl.webhook_event_types,
             pl.webhook_subscriptions, pl.bulk_outstanding_rows, pl.webinar_rooms, pl.features
        FROM partners p JOIN plans pl ON pl.code = p.plan_code`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP VIEW partner_accounts`);
  }
}
