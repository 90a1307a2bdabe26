import { MigrationInterface, QueryRunner } from 'typeorm';

/** The first version of the document builder (a later migration replaces it; its `down` restores this one). */
export const SEARCH_REFRESH_DOCUMENTS_V1 = `
      CREATE OR REPLACE FUNCTION search_refresh_documents(ids int[]) RETURNS void LANGUAGE sql AS $$
        WITH src AS (
          SELECT c.id, c.title, c.category, coalesce(c.organisation, '') AS organisation, t.name AS tutor,
                 coalesce((SELECT string_agg(tp.title, ' . ' ORDER BY tp.position) FROM topics tp WHERE tp.course_id = c.id), '') AS topics,
                 left(c.description, 2000) AS description
            FROM courses c JOIN tutors t ON t.id = c.tutor_id
           WHERE c.id = ANY(ids)
        ), docs AS (
          SELECT id,
                 setweight(to_tsvector('english', title), 'A') ||
                 setweight(to_tsvector('english', category || ' ' || organisation || ' ' || tutor || ' ' || topics), 'B') ||
                 setweight(to_tsvector('english', description), 'C') AS document,
                 concat_ws(E'\\n', title, category, nullif(organisation, ''), topics, left(description, 1500)) AS content,
                 title || ' ' || category || ' ' || organisation || ' ' || tutor || ' ' || topics || ' ' || description AS words
            FROM src
        ), upserted AS (
          INSERT INTO search_documents AS d (course_id, document, head, content, content_hash)
          SELECT id, document, ts_filter(document, '{a,b}'), content, md5(content) FROM docs
          ON CONFLICT (course_id) DO UPDATE
            SET document = EXCLUDED.document, head = EXCLUDED.head, content = EXCLUDED.content, content_hash = EXCLUDED.content_hash, updated_at = now()
            WHERE d.document IS DISTINCT FROM EXCLUDED.document OR d.content_hash IS DISTINCT FROM EXCLUDED.content_hash
        )
        INSERT INTO search_vocabulary (word)
        SELECT DISTINCT w FROM docs, unnest(tsvector_to_array(to_tsvector('simple', docs.words))) AS w
         WHERE length(w) BETWEEN 3 AND 60 AND w ~ '^[a-z][a-z0-9]*$'
         ORDER BY w
        ON CONFLICT DO NOTHING
      $$`;

/**
 * Search documents maintained by PostgreSQL itself: triggers on courses, topics and tutors rebuild a course's weighted
 * tsvector (title A; category, organisation, tutor, topics B; description C) whatever wrote the change, and add its
 * words to a vocabulary used for typo correction. `head` is the same vector without the description: small enough to
 * stay inline (no TOAST), so ranking thousands of matches stays fast; the full `document` is the fallback for recall. Embeddings (optional) are stored next to the document as real[],
 * with the hash of the text they were computed from, so stale ones are found with one indexed query.
 */
export class Search1763800020000 implements MigrationInterface {
  name = 'Search1763800020000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await q.query(`
      CREATE TABLE search_documents (
        course_id int PRIMARY KEY REFERENCES courses(id) ON DELETE CASCADE,
        document tsvector NOT NULL,
        head tsvector NOT NULL,
        content text NOT NULL,
        content_hash char(32) NOT NULL,
        embedding real[] CHECK (embedding IS NULL OR cardinality(embedding) > 0),
        embedding_model varchar(200),
        embedded_hash char(32),
        embedded_at timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX search_documents_document_idx ON search_documents USING gin (document)`);
    await q.query(`CREATE INDEX search_documents_head_idx ON search_documents USING gin (head)`);
    await q.query(`CREATE INDEX search_documents_pending_idx ON search_documents (course_id) WHERE embedded_hash IS DISTINCT FROM content_hash`);
    await q.query(`CREATE TABLE search_vocabulary (word varchar(60) PRIMARY KEY)`);
    await q.query(`CREATE INDEX search_vocabulary_trgm_idx ON search_vocabulary USING gin (lower(word) gin_trgm_ops)`);
    await q.query(`CREATE INDEX courses_title_trgm_idx ON courses USING gin (lower(title) gin_trgm_ops) WHERE published`);
    await q.query(`CREATE INDEX courses_organisation_trgm_idx ON courses USING gin (lower(organisation) gin_trgm_ops) WHERE published`);
    await q.query(`CREATE INDEX tutors_name_trgm_idx ON tutors USING gin (lower(name) gin_trgm_ops)`);

    await q.query(SEARCH_REFRESH_DOCUMENTS_V1);

    await q.query(`
      CREATE FUNCTION search_courses_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM search_refresh_documents(ARRAY(SELECT id FROM new_rows));
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE FUNCTION search_course_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM search_refresh_documents(ARRAY[NEW.id]);
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE FUNCTION search_topics_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          PERFORM search_refresh_documents(ARRAY(SELECT DISTINCT course_id FROM old_rows));
        ELSE
          PERFORM search_refresh_documents(ARRAY(SELECT DISTINCT course_id FROM new_rows));
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE FUNCTION search_tutor_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM search_refresh_documents(ARRAY(SELECT id FROM courses WHERE tutor_id = NEW.id));
        RETURN NULL;
      END $$`);

    await q.query(
      `CREATE TRIGGER search_courses_inserted AFTER INSERT ON courses REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_courses_inserted()`,
    );
    // Row level with a WHEN: enrolment counters and publishing update courses often and must not rebuild documents.
    await q.query(`
      CREATE TRIGGER search_course_changed AFTER UPDATE ON courses FOR EACH ROW
        WHEN ((OLD.title, OLD.description, OLD.category, OLD.organisation, OLD.tutor_id) IS DISTINCT FROM (NEW.title, NEW.description, NEW.category, NEW.organisation, NEW.tutor_id))
        EXECUTE FUNCTION search_course_changed()`);
    await q.query(
      `CREATE TRIGGER search_topics_inserted AFTER INSERT ON topics REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_topics_changed()`,
    );
    await q.query(
      `CREATE TRIGGER search_topics_updated AFTER UPDATE ON topics REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_topics_changed()`,
    );
    await q.query(
      `CREATE TRIGGER search_topics_deleted AFTER DELETE ON topics REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_topics_changed()`,
    );
    await q.query(`
      CREATE TRIGGER search_tutor_renamed AFTER UPDATE ON tutors FOR EACH ROW
        WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION search_tutor_renamed()`);

    // Courses that existed before this migration.
    await q.query(`SELECT search_refresh_documents(ARRAY(SELECT id FROM courses))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER search_tutor_renamed ON tutors`);
    await q.query(`DROP TRIGGER search_topics_deleted ON topics`);
    await q.query(`DROP TRIGGER search_topics_updated ON topics`);
    await q.query(`DROP TRIGGER search_topics_inserted ON topics`);
    await q.query(`DROP TRIGGER search_course_changed ON courses`);
    await q.query(`DROP TRIGGER search_courses_inserted ON courses`);
    await q.query(`DROP FUNCTION search_tutor_renamed(), search_topics_changed(), search_course_changed(), search_courses_inserted()`);
    await q.query(`DROP FUNCTION search_refresh_documents(int[])`);
    await q.query(`DROP INDEX tutors_name_trgm_idx, courses_organisation_trgm_idx, courses_title_trgm_idx`);
    await q.query(`DROP TABLE search_vocabulary`);
    await q.query(`DROP TABLE search_documents`);
  }
}
