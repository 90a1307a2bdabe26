import { MigrationInterface, QueryRunner } from 'typeorm';

export class Certificates1763800040000 implements MigrationInterface {
  name = 'Certificates1763800040000';

  async up(q: QueryRunner): Promise<void> {
    // enrollment_id UNIQUE is the rule that makes any number of parallel issue attempts yield one certificate.
    await q.query(`
      CREATE TABLE certificates (
        id varchar(20) PRIMARY KEY CHECK (id ~ '^(TST|ECK)-[0-9]{4}-[0-9A-HJKMNP-TV-Z]{10}$'),
        partner_id int NOT NULL REFERENCES partners(id),
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        user_id int NOT NULL REFERENCES users(id),
        course_id int NOT NULL REFERENCES courses(id),
        enrollment_id int NOT NULL REFERENCES enrollments(id),
        holder_name varchar(200) NOT NULL,
        course_title varchar(300) NOT NULL,
        issued_at date NOT NULL,
        override_quiz boolean NOT NULL DEFAULT false,
        revoked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT certificates_enrollment_uq UNIQUE (enrollment_id),
        CONSTRAINT certificates_prefix_mode_ck CHECK ((mode = 'live') = (left(id, 3) = 'ECK'))
      )`);
    await q.query(`CREATE INDEX certificates_scope_user_idx ON certificates (partner_id, mode, user_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE certificates`);
  }
}
