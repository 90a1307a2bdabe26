import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Enrolment counts without a hot row. The deferred trigger of EnrollmentCountTrigger updated the course row at every
 * COMMIT; `enrolled` is in the popular sort index, so each of those updates was non-HOT (every index of `courses`,
 * the trigram GINs included, got a new entry) and all enrolments into one course queued on that row.
 *
 * Now the trigger adds one to one of 32 counter shards of the course (chosen by the backend's pid, so connections of
 * a pool rarely share one). The shard table has no index but its primary key and room on every page (fillfactor),
 * so an increment is a HOT update of a small row. The worker folds the shards into `courses.enrolled` every second in
 * one statement (`fold_enrollment_counts()`), which keeps the popular sort close; `course_enrolled(id)` is the exact
 * count (folded + shards), and every response that shows `enrolled` reads it.
 */
export class EnrollmentCountShards1763800130000 implements MigrationInterface {
  name = 'EnrollmentCountShards1763800130000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER enrollments_count_course ON enrollments`);
    await q.query(`DROP FUNCTION count_enrollment()`);
    await q.query(`
      CREATE TABLE course_enrollment_counts (
        course_id int NOT NULL REFERENCES courses(id) ON DELETE CASCADE,
        shard smallint NOT NULL CHECK (shard BETWEEN 0 AND 31),
        n int NOT NULL,
        PRIMARY KEY (course_id, shard)
      ) WITH (fillfactor = 50)`);
    await q.query(`
      CREATE FUNCTION count_enrollment_shard() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO course_enrollment_counts (course_id, shard, n) VALUES (NEW.course_id, pg_backend_pid() % 32, 1)
          ON CONFLICT (course_id, shard) DO UPDATE SET n = course_enrollment_counts.n + 1;
        RETURN NULL;
      END $$`);
    // Deferred: the shard row is locked only while the enrolling transaction commits.
    await q.query(`
      CREATE CONSTRAINT TRIGGER enrollments_count_shard AFTER INSERT ON enrollments
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION count_enrollment_shard()`);
    await q.query(`
      CREATE FUNCTION course_enrolled(course int) RETURNS int LANGUAGE sql STABLE AS $$
        SELECT (c.enrolled + coalesce((SELECT sum(s.n) FROM course_enrollment_counts s WHERE s.course_id = c.id), 0))::int
          FROM courses c WHERE c.id = course
      $$`);
    // One folder at a time across instances (a transaction-level advisory lock; the others skip their tick), so two
    // folds never update the same course rows in different orders. Shards locked by a committing enrolment are skipped
    // (folded next time), so folding never waits on an enrolment. The subtraction moves exactly what was read:
    // folded + shards is the same before and after, in one statement.
    await q.query(`
      CREATE FUNCTION fold_enrollment_counts() RETURNS int LANGUAGE plpgsql AS $$
      DECLARE
        changed int;
      BEGIN
        IF NOT pg_try_advisory_xact_lock(hashtext('fold_enrollment_counts')) THEN
          RETURN 0;
        END IF;
        WITH taken AS (
          SELECT course_id, shard, n FROM course_enrollment_counts WHERE n <> 0 ORDER BY course_id, shard FOR UPDATE SKIP LOCKED
        ), moved AS (
          UPDATE course_enrollment_counts s SET n = s.n - taken.n FROM taken
           WHERE s.course_id = taken.course_id AND s.shard = taken.shard RETURNING s.course_id, taken.n
        ), folded AS (
          UPDATE courses c SET enrolled = c.enrolled + m.n
            FROM (SELECT course_id, sum(n)::int AS n FROM moved GROUP BY course_id) m
           WHERE c.id = m.course_id RETURNING c.id
        )
        SELECT count(*)::int INTO changed FROM folded;
        RETURN changed;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`SELECT fold_enrollment_counts()`);
    await q.query(`DROP TRIGGER enrollments_count_shard ON enrollments`);
    await q.query(`DROP FUNCTION fold_enrollment_counts(), course_enrolled(int), count_enrollment_shard()`);
    await q.query(`DROP TABLE course_enrollment_counts`);
    await q.query(`
      CREATE FUNCTION count_enrollment() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE courses SET enrolled = enrolled + 1 WHERE id = NEW.course_id;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER enrollments_count_course AFTER INSERT ON enrollments
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION count_enrollment()`);
  }
}
