import { MigrationInterface, QueryRunner } from 'typeorm';

export class Webhooks1763800010000 implements MigrationInterface {
  name = 'Webhooks1763800010000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_subscriptions (
        id varchar(40) PRIMARY KEY,
        partner_id int NOT NULL REFERENCES partners(id),
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        url varchar(2048) NOT NULL,
        events text[] NOT NULL CHECK (cardinality(events) BETWEEN 1 AND 9),
        secret_encrypted text NOT NULL,
        status varchar(10) NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
        disabled_reason varchar(200),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX webhook_subscriptions_scope_idx ON webhook_subscriptions (partner_id, mode, created_at)`);
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id varchar(40) PRIMARY KEY,
        subscription_id varchar(40) NOT NULL REFERENCES webhook_subscriptions(id) ON DELETE CASCADE,
        event_id varchar(40) NOT NULL REFERENCES events(id),
        partner_id int NOT NULL,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        event_type varchar(40) NOT NULL,
        body text NOT NULL,
        status varchar(10) NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts int NOT NULL DEFAULT 0 CHECK (attempts >= 0),
        last_status_code int,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        delivered_at timestamptz,
        next_attempt_at timestamptz,
        UNIQUE (event_id, subscription_id)
      )`);
    await q.query(`CREATE INDEX webhook_deliveries_subscription_idx ON webhook_deliveries (subscription_id, created_at DESC)`);
    await q.query(`
      CREATE TABLE webhook_attempts (
        id bigserial PRIMARY KEY,
        delivery_id varchar(40) NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
        attempted_at timestamptz NOT NULL DEFAULT now(),
        status_code int,
        duration_ms int NOT NULL CHECK (duration_ms >= 0),
        error text,
        response_body text
      )`);
    await q.query(`CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, attempted_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_attempts`);
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP TABLE webhook_subscriptions`);
  }
}
