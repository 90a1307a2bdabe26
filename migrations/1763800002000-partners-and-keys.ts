import { MigrationInterface, QueryRunner } from 'typeorm';

export class PartnersAndKeys1763800002000 implements MigrationInterface {
  name = 'PartnersAndKeys1763800002000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE plans (
        code varchar(20) PRIMARY KEY,
        name varchar(60) NOT NULL,
        monthly_quota int CHECK (monthly_quota > 0),
        rate_limit_per_second int NOT NULL CHECK (rate_limit_per_second > 0),
        webhook_event_types int CHECK (webhook_event_types > 0),
        webinar_rooms int CHECK (webinar_rooms >= 0),
        features text[] NOT NULL
      )`);
    // Contract section 3. NULL means unlimited.
    await q.query(`
      INSERT INTO plans (code, name, monthly_quota, rate_limit_per_second, webhook_event_types, webinar_rooms, features) VALUES
        ('starter', 'Starter (free)', 500, 5, 2, 0, ARRAY['catalogue', 'account', 'webhooks']),
        ('growth', 'Growth', 50000, 50, NULL, 5, ARRAY['catalogue', 'account', 'webhooks', 'users', 'enrollment', 'credits', 'certificates', 'webinars', 'search']),
        ('enterprise', 'Enterprise', NULL, 500, NULL, NULL, ARRAY['catalogue', 'account', 'webhooks', 'users', 'enrollment', 'credits', 'certificates', 'webinars', 'search'])`);
    await q.query(`
      CREATE TABLE partners (
        id serial PRIMARY KEY,
        name varchar(200) NOT NULL CHECK (length(btrim(name)) > 0),
        email varchar(320) NOT NULL,
        website varchar(2048),
        plan_code varchar(20) NOT NULL REFERENCES plans(code),
        status varchar(20) NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
        allowed_origins text[] NOT NULL DEFAULT '{}',
        is_operator boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX partners_one_operator_uq ON partners (is_operator) WHERE is_operator`);
    await q.query(`
      CREATE TABLE api_keys (
        id varchar(40) PRIMARY KEY,
        partner_id int NOT NULL REFERENCES partners(id),
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        role varchar(10) NOT NULL CHECK (role IN ('partner', 'admin')),
        name varchar(200),
        key_prefix varchar(14) NOT NULL,
        key_hash char(64) NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz
      )`);
    await q.query(`CREATE INDEX api_keys_partner_idx ON api_keys (partner_id)`);
    await q.query(`
      CREATE TABLE production_access_requests (
        id varchar(40) PRIMARY KEY,
        partner_id int NOT NULL REFERENCES partners(id),
        use_case text NOT NULL,
        status varchar(10) NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
        reason text,
        live_key_id varchar(40) REFERENCES api_keys(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        reviewed_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX par_one_pending_uq ON production_access_requests (partner_id) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX par_status_idx ON production_access_requests (status, created_at)`);
    await q.query(`ALTER TABLE events ADD CONSTRAINT events_partner_fk FOREIGN KEY (partner_id) REFERENCES partners(id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE events DROP CONSTRAINT events_partner_fk`);
    await q.query(`DROP TABLE production_access_requests`);
    await q.query(`DROP TABLE api_keys`);
    await q.query(`DROP TABLE partners`);
    await q.query(`DROP TABLE plans`);
  }
}
