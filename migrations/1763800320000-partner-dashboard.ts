import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The partner dashboard: single-use sign-in links and sessions (both stored as SHA-256 of the token, never the
 * token), the recent requests of each partner and mode (kept a bounded time, pruned by the recorder), calls per day
 * (the usage chart), and the request headers of every webhook attempt (so the delivery log shows what was sent).
 */
export class PartnerDashboard1763800320000 implements MigrationInterface {
  name = 'PartnerDashboard1763800320000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE dashboard_links (
        token_hash char(64) PRIMARY KEY,
        partner_id int NOT NULL REFERENCES partners(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      )`);
    await q.query(`CREATE INDEX dashboard_links_expires_idx ON dashboard_links (expires_at)`);
    await q.query(`
      CREATE TABLE dashboard_sessions (
        id_hash char(64) PRIMARY KEY,
        partner_id int NOT NULL REFERENCES partners(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        csrf_token varchar(64) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX dashboard_sessions_expires_idx ON dashboard_sessions (expires_at)`);
    await q.query(`
      CREATE TABLE request_log (
        id bigserial PRIMARY KEY,
        partner_id int NOT NULL,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        method varchar(10) NOT NULL,
        path varchar(2048) NOT NULL,
        status smallint NOT NULL,
        duration_ms int NOT NULL CHECK (duration_ms >= 0),
        request_id varchar(128) NOT NULL,
        key_prefix varchar(14),
        created_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX request_log_scope_idx ON request_log (partner_id, mode, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX request_log_created_idx ON request_log (created_at)`);
    await q.query(`
      CREATE TABLE usage_days (
        partner_id int NOT NULL,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        day date NOT NULL,
        calls bigint NOT NULL CHECK (calls >= 0),
        PRIMARY KEY (partner_id, mode, day)
      )`);
    await q.query(`ALTER TABLE webhook_attempts ADD COLUMN request_headers jsonb`);
    // The delivery log filters across all of a scope's subscriptions.
    await q.query(`CREATE INDEX webhook_deliveries_scope_idx ON webhook_deliveries (partner_id, mode, created_at DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhook_deliveries_scope_idx`);
    await q.query(`ALTER TABLE webhook_attempts DROP COLUMN request_headers`);
    await q.query(`DROP TABLE usage_days`);
    await q.query(`DROP TABLE request_log`);
    await q.query(`DROP TABLE dashboard_sessions`);
    await q.query(`DROP TABLE dashboard_links`);
  }
}
