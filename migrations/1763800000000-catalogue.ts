import { MigrationInterface, QueryRunner } from 'typeorm';

export class Catalogue1763800000000 implements MigrationInterface {
  name = 'Catalogue1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await q.query(`
      CREATE TABLE tutors (
        id serial PRIMARY KEY,
        name varchar(200) NOT NULL CHECK (length(btrim(name)) > 0),
        bio text NOT NULL DEFAULT '',
        avatar_url varchar(2048),
        organisation varchar(200),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX tutors_name_org_uq ON tutors (name, coalesce(organisation, ''))`);
    await q.query(`
      CREATE TABLE courses (
        id serial PRIMARY KEY,
        title varchar(300) NOT NULL CHECK (length(btrim(title)) > 0),
        description text NOT NULL DEFAULT '',
        category varchar(100) NOT NULL CHECK (length(btrim(category)) > 0),
        level varchar(20) NOT NULL CHECK (level IN ('Beginner', 'Intermediate', 'Advanced', 'All Levels')),
        duration_minutes int NOT NULL CHECK (duration_minutes > 0),
        rating numeric(2,1) NOT NULL DEFAULT 0 CHECK (rating >= 0 AND rating <= 5),
        enrolled int NOT NULL DEFAULT 0 CHECK (enrolled >= 0),
        credit_cost int NOT NULL DEFAULT 0 CHECK (credit_cost >= 0),
        thumbnail_url varchar(2048),
        preview_video_url varchar(2048),
        tutor_id int NOT NULL REFERENCES tutors(id),
        organisation varchar(200),
        published boolean NOT NULL DEFAULT false,
        source_key varchar(300) UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX courses_published_popular_idx ON courses (enrolled DESC, id) WHERE published`);
    await q.query(`CREATE INDEX courses_category_idx ON courses (lower(category)) WHERE published`);
    await q.query(`CREATE INDEX courses_tutor_idx ON courses (tutor_id)`);
    await q.query(`
      CREATE TABLE topics (
        id serial PRIMARY KEY,
        course_id int NOT NULL REFERENCES courses(id) ON DELETE CASCADE,
        position int NOT NULL CHECK (position >= 1),
        title varchar(300) NOT NULL CHECK (length(btrim(title)) > 0),
        duration_minutes int NOT NULL CHECK (duration_minutes > 0),
        has_quiz boolean NOT NULL DEFAULT false,
        is_preview boolean NOT NULL DEFAULT false,
        UNIQUE (course_id, position)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE topics`);
    await q.query(`DROP TABLE courses`);
    await q.query(`DROP TABLE tutors`);
  }
}
