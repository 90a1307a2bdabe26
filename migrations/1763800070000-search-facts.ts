import { MigrationInterface, QueryRunner } from 'typeorm';
import { SEARCH_REFRESH_DOCUMENTS_V1 } from './1763800020000-search';

// The popularity a search head carries: log10(1 + enrolled) to two decimals. Enrolments update `courses.enrolled`
// all the time; the head follows only when this rounded value moves (every ~2 % of growth), so an enrolment costs
// nothing more and ranking sees popularity to within 0.0004 of its score.
const POPULARITY = (e: string) => `round(100 * log(1 + (${e})::float8)) / 100`;

// Each fact of search_heads and its value from courses c and tutors t.
const FACTS: Array<[column: string, value: string]> = [
  ['published', 'c.published'],
  ['level', 'c.level'],
  ['category_key', 'lower(c.category)'],
  ['credit_cost', 'c.credit_cost'],
  ['duration_minutes', 'c.duration_minutes'],
  ['organisation', 'c.organisation'],
  ['tutor_name', 't.name'],
  ['popularity', `(${POPULARITY('c.enrolled')})::real`],
];
const FACT_COLUMNS = FACTS.map(([column]) => column).join(', ');
const FACT_VALUES = FACTS.map(([, value]) => value).join(', ');

/**
 * Searches read one narrow table, `search_heads`: per course the head vector (title, category, organisation,
 * tutor, topics) and the facts searches filter and rank on (published, level, category, price, duration,
 * organisation, tutor, popularity), kept by the same triggers as the documents. At 20,000 courses, matching
 * thousands of heads inside the wide `search_documents` rows (content, full vector, embedding) and joining the wide
 * `courses` heap for each match was most of a query's time; ~18 heads fit a page where 4 documents did.
 * `search_documents` keeps the full vector (the recall fallback), the embedded content and the embeddings.
 *
 * `search_flush_pending()` merges the GIN indexes' pending lists into the indexes: bulk writers (the catalogue loader)
 * call it when done, as entries left in those unsorted lists after a load made every search scan them (a 5× slower
 * index scan until autovacuum came by). Inserting straight into the indexes instead (`fastupdate = off`) made a load
 * 40 % slower; single admin edits leave a few entries that autovacuum merges.
 */
export class SearchFacts1763800070000 implements MigrationInterface {
  name = 'SearchFacts1763800070000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE search_heads (
        course_id int PRIMARY KEY REFERENCES courses(id) ON DELETE CASCADE,
        head tsvector NOT NULL,
        published boolean NOT NULL,
        level varchar(20) NOT NULL,
        category_key varchar(100) NOT NULL,
        credit_cost int NOT NULL,
        duration_minutes int NOT NULL,
        organisation varchar(200),
        tutor_name varchar(200) NOT NULL,
        popularity real NOT NULL
      )`);
    await q.query(`CREATE INDEX search_heads_head_idx ON search_heads USING gin (head)`);
    // Filter-only searches ("computer science from MIT") and the resolution of "from …" / "by …" phrases.
    await q.query(`CREATE INDEX search_heads_category_idx ON search_heads (category_key) WHERE published`);
    await q.query(`CREATE INDEX search_heads_organisation_idx ON search_heads (organisation) WHERE published`);
    await q.query(`CREATE INDEX search_heads_tutor_idx ON search_heads (tutor_name) WHERE published`);
    await q.query(`CREATE INDEX search_heads_organisation_trgm_idx ON search_heads USING gin (lower(organisation) gin_trgm_ops) WHERE published`);

    await q.query(`
      CREATE OR REPLACE FUNCTION search_refresh_documents(ids int[]) RETURNS void LANGUAGE sql AS $$
        WITH src AS (
          SELECT c.id, c.title, c.category, coalesce(c.organisation, '') AS organisation, t.name AS tutor,
                 coalesce((SELECT string_agg(tp.title, ' . ' ORDER BY tp.position) FROM topics tp WHERE tp.course_id = c.id), '') AS topics,
                 left(c.description, 2000) AS description,
                 ${FACTS.map(([column, value]) => `${value} AS fact_${column}`).join(', ')}
            FROM courses c JOIN tutors t ON t.id = c.tutor_id
           WHERE c.id = ANY(ids)
        ), docs AS (
          SELECT src.*,
                 setweight(to_tsvector('english', title), 'A') ||
                 setweight(to_tsvector('english', category || ' ' || organisation || ' ' || tutor || ' ' || topics), 'B') ||
                 setweight(to_tsvector('english', description), 'C') AS document,
                 concat_ws(E'\\n', title, category, nullif(organisation, ''), topics, left(description, 1500)) AS content,
                 title || ' ' || category || ' ' || organisation || ' ' || tutor || ' ' || topics || ' ' || description AS words
            FROM src
        ), documents AS (
          INSERT INTO search_documents AS d (course_id, document, content, content_hash)
          SELECT id, document, content, md5(content) FROM docs
          ON CONFLICT (course_id) DO UPDATE
            SET document = EXCLUDED.document, content = EXCLUDED.content, content_hash = EXCLUDED.content_hash, updated_at = now()
            WHERE d.document IS DISTINCT FROM EXCLUDED.document OR d.content_hash IS DISTINCT FROM EXCLUDED.content_hash
        ), heads AS (
          INSERT INTO search_heads AS h (course_id, head, ${FACT_COLUMNS})
          SELECT id, ts_filter(document, '{a,b}'), ${FACTS.map(([column]) => `fact_${column}`).join(', ')} FROM docs
          ON CONFLICT (course_id) DO UPDATE
            SET (head, ${FACT_COLUMNS}) = (EXCLUDED.head, ${FACTS.map(([column]) => `EXCLUDED.${column}`).join(', ')})
            WHERE (h.head, ${FACTS.map(([column]) => `h.${column}`).join(', ')})
                  IS DISTINCT FROM (EXCLUDED.head, ${FACTS.map(([column]) => `EXCLUDED.${column}`).join(', ')})
        )
        INSERT INTO search_vocabulary (word)
        SELECT DISTINCT w FROM docs, unnest(tsvector_to_array(to_tsvector('simple', docs.words))) AS w
         WHERE length(w) BETWEEN 3 AND 60 AND w ~ '^[a-z][a-z0-9]*$'
         ORDER BY w
        ON CONFLICT DO NOTHING
      $$`);

    // Facts only (publishing, price, popularity, …): no vector to rebuild.
    await q.query(`
      CREATE FUNCTION search_course_facts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        ${DEFERRED}
        UPDATE search_heads h
           SET (${FACT_COLUMNS}) = (SELECT ${FACT_VALUES})
          FROM courses c JOIN tutors t ON t.id = c.tutor_id
         WHERE h.course_id = NEW.id AND c.id = NEW.id;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER search_course_facts_changed AFTER UPDATE ON courses FOR EACH ROW
        WHEN ((OLD.published, OLD.level, OLD.category, OLD.credit_cost, OLD.duration_minutes, OLD.organisation, OLD.tutor_id, ${POPULARITY('OLD.enrolled')})
              IS DISTINCT FROM (NEW.published, NEW.level, NEW.category, NEW.credit_cost, NEW.duration_minutes, NEW.organisation, NEW.tutor_id, ${POPULARITY('NEW.enrolled')}))
        EXECUTE FUNCTION search_course_facts_changed()`);

    for (const sql of refreshTriggerFunctions(true)) await q.query(sql);

    // The head moves to search_heads (dropped first: the new builder no longer writes it), built for existing courses.
    await q.query(`DROP INDEX search_documents_head_idx`);
    await q.query(`ALTER TABLE search_documents DROP COLUMN head`);
    await q.query(`SELECT search_refresh_documents(ARRAY(SELECT id FROM courses))`);

    await q.query(`
      CREATE FUNCTION search_flush_pending() RETURNS void LANGUAGE sql AS $$
        SELECT gin_clean_pending_list(i.indexrelid)
          FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
         WHERE a.amname = 'gin' AND i.indrelid = ANY(ARRAY['search_heads', 'search_documents', 'search_vocabulary', 'courses', 'tutors']::regclass[])
      $$`);
    await q.query(`SELECT search_flush_pending()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION search_flush_pending()`);
    await q.query(`ALTER TABLE search_documents ADD COLUMN head tsvector`);
    await q.query(`UPDATE search_documents SET head = ts_filter(document, '{a,b}')`);
    await q.query(`ALTER TABLE search_documents ALTER COLUMN head SET NOT NULL`);
    await q.query(`CREATE INDEX search_documents_head_idx ON search_documents USING gin (head)`);
    for (const sql of refreshTriggerFunctions(false)) await q.query(sql);
    await q.query(`DROP TRIGGER search_course_facts_changed ON courses`);
    await q.query(`DROP FUNCTION search_course_facts_changed()`);
    await q.query(SEARCH_REFRESH_DOCUMENTS_V1);
    await q.query(`DROP TABLE search_heads`);
  }
}

/**
 * A bulk writer (the catalogue loader) sets `search.defer_refresh` for its transaction and rebuilds the documents
 * of what it wrote once at the end (`search_refresh_documents`), instead of once per statement that touched them.
 */
const DEFERRED = `IF current_setting('search.defer_refresh', true) = 'on' THEN RETURN NULL; END IF;`;

/** The trigger functions of Search1763800020000, with (up) or without (down) the deferral check. */
function refreshTriggerFunctions(deferrable: boolean): string[] {
  const fn = (name: string, body: string) => `
      CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        ${deferrable ? DEFERRED : ''}
        ${body}
        RETURN NULL;
      END $$`;
  return [
    fn('search_courses_inserted', 'PERFORM search_refresh_documents(ARRAY(SELECT id FROM new_rows));'),
    fn('search_course_changed', 'PERFORM search_refresh_documents(ARRAY[NEW.id]);'),
    fn(
      'search_topics_changed',
      `IF TG_OP = 'DELETE' THEN
          PERFORM search_refresh_documents(ARRAY(SELECT DISTINCT course_id FROM old_rows));
        ELSE
          PERFORM search_refresh_documents(ARRAY(SELECT DISTINCT course_id FROM new_rows));
        END IF;`,
    ),
    fn('search_tutor_renamed', 'PERFORM search_refresh_documents(ARRAY(SELECT id FROM courses WHERE tutor_id = NEW.id));'),
  ];
}
