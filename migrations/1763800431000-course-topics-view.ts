import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the courses feature shows the enrolment feature of its topics: which course each belongs to and whether it
 * has a quiz. Counting progress in the same statement as the enrolment rows keeps every progress read and update to
 * one round trip, so the enrolment repository joins this view instead of asking CoursesService. PostgreSQL inlines
 * it, so the statement's plan is the one it had on the table.
 */
export class CourseTopicsView1763800431000 implements MigrationInterface {
  name = 'CourseTopicsView1763800431000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE VIEW course_topics AS SELECT id, course_id, has_quiz FROM topics`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP VIEW course_topics`);
  }
}
