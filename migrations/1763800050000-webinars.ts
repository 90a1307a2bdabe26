import { MigrationInterface, QueryRunner } from 'typeorm';

export class Webinars1763800050000 implements MigrationInterface {
  name = 'Webinars1763800050000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webinars (
        id varchar(40) PRIMARY KEY CHECK (id ~ '^wbn_[0-9A-Za-z]{22}$'),
        partner_id int NOT NULL REFERENCES partners(id),
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        title varchar(200) NOT NULL CHECK (length(btrim(title)) > 0),
        host_user_id int NOT NULL REFERENCES users(id),
        scheduled_at timestamptz NOT NULL,
        duration_minutes int NOT NULL DEFAULT 60 CHECK (duration_minutes BETWEEN 1 AND 1440),
        max_attendees int NULL CHECK (max_attendees IS NULL OR max_attendees >= 1),
        -- attendees holding a seat (registered or joined); the conditional UPDATE that takes a seat keeps it within max_attendees
        seats_taken int NOT NULL DEFAULT 0 CHECK (seats_taken >= 0 AND (max_attendees IS NULL OR seats_taken <= max_attendees)),
        is_public boolean NOT NULL DEFAULT false,
        status varchar(10) NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'live', 'ended')),
        host_token_hash char(64) NOT NULL,
        started_at timestamptz NULL,
        ended_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT webinars_state_times_ck CHECK (
          (status = 'scheduled' AND started_at IS NULL AND ended_at IS NULL)
          OR (status = 'live' AND started_at IS NOT NULL AND ended_at IS NULL)
          OR (status = 'ended' AND started_at IS NOT NULL AND ended_at IS NOT NULL AND ended_at >= started_at)
        )
      )`);
    await q.query(`CREATE INDEX webinars_scope_idx ON webinars (partner_id, mode, status, scheduled_at)`);
    await q.query(`CREATE INDEX webinars_public_idx ON webinars (mode, scheduled_at) WHERE is_public AND status <> 'ended'`);
    await q.query(`
      CREATE TABLE webinar_attendees (
        id serial PRIMARY KEY,
        partner_id int NOT NULL REFERENCES partners(id),
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        webinar_id varchar(40) NOT NULL REFERENCES webinars(id) ON DELETE CASCADE,
        user_id int NOT NULL REFERENCES users(id),
        status varchar(10) NOT NULL CHECK (status IN ('registered', 'joined')),
        registered_at timestamptz NOT NULL DEFAULT now(),
        joined_at timestamptz NULL,
        attendee_token_hash char(64) NOT NULL,
        CONSTRAINT webinar_attendees_uq UNIQUE (webinar_id, user_id),
        CONSTRAINT webinar_attendees_token_uq UNIQUE (attendee_token_hash),
        CONSTRAINT webinar_attendees_joined_ck CHECK ((status = 'joined') = (joined_at IS NOT NULL))
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webinar_attendees`);
    await q.query(`DROP TABLE webinars`);
  }
}
