import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Measured presence: one row per media session a viewer held on a webinar (from ICE connected to its close).
 * An attendee's sessions give their watched time and whether they are connected now; anonymous viewers of a
 * public webinar (user_id NULL) only count towards peak concurrency.
 */
export class WebinarMediaSessions1763800330000 implements MigrationInterface {
  name = 'WebinarMediaSessions1763800330000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webinar_media_sessions (
        id bigserial PRIMARY KEY,
        webinar_id varchar(40) NOT NULL REFERENCES webinars(id) ON DELETE CASCADE,
        user_id int NULL REFERENCES users(id),
        session_id varchar(32) NOT NULL UNIQUE,
        connected_at timestamptz NOT NULL,
        disconnected_at timestamptz NULL,
        CONSTRAINT webinar_media_sessions_span_ck CHECK (disconnected_at IS NULL OR disconnected_at >= connected_at)
      )`);
    await q.query(`CREATE INDEX webinar_media_sessions_webinar_user_idx ON webinar_media_sessions (webinar_id, user_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webinar_media_sessions`);
  }
}
