import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The course's `enrolled` count is kept by PostgreSQL: a deferred constraint trigger adds one per new enrolment
 * at COMMIT of the enrolling transaction. The count commits or rolls back with the enrolment (it always equals
 * the rows added), and the row of a popular course is locked only while committing, not across the
 * application's round trips, which is what limited parallel enrolments into one course.
 */
export class EnrollmentCountTrigger1763800060000 implements MigrationInterface {
  name = 'EnrollmentCountTrigger1763800060000';

  async up(q: QueryRunner): Promise<void> {
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

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER enrollments_count_course ON enrollments`);
    await q.query(`DROP FUNCTION count_enrollment()`);
  }
}
