import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What search reads of the courses feature's tables, as views the courses feature owns (scripts/sql-ownership.json
 * lists search as their reader): its ranking statements still join the catalogue in the same statement, and the
 * courses feature sees in one place which of its columns another feature depends on. Simple views are inlined by the
 * planner, so the statements' plans (and the partial trigram index on published titles) stay what they were.
 */
export class CatalogueViewsForSearch1763800420000 implements MigrationInterface {
  name = 'CatalogueViewsForSearch1763800420000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE VIEW published_courses AS SELECT id, title, enrolled, rating, tutor_id FROM courses WHERE published`);
    await q.query(`
      CREATE VIEW published_tutors AS
        SELECT t.id, t.name FROM tutors t WHERE EXISTS (SELECT 1 FROM courses c WHERE c.tutor_id = t.id AND c.published)`);
    await q.query(`
      CREATE VIEW course_words AS
        SELECT c.id, c.title, c.category, c.description,
               coalesce((SELECT string_agg(tp.title, ' . ' ORDER BY tp.position) FROM topics tp WHERE tp.course_id = c.id), '') AS topics
          FROM courses c`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP VIEW course_words`);
    await q.query(`DROP VIEW published_tutors`);
    await q.query(`DROP VIEW published_courses`);
  }
}
