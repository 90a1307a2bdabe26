import { MigrationInterface, QueryRunner } from 'typeorm';

// search_heads' columns a search filters on (SearchFacts, resolveOrganisation): popularity is left out on purpose,
// since enrolments move it and no copy in memory holds it.
const FACTS = ['published', 'level', 'category_key', 'credit_cost', 'duration_minutes', 'organisation', 'tutor_name'];
const row = (alias: string) => `(${FACTS.map((c) => `${alias}.${c}`).join(', ')})`;

/**
 * A statement trigger's function raising version `name` when the statement changed what it covers: each event's test
 * reads only the transition tables that event has (PL/pgSQL plans a statement when it first runs it).
 */
const versioned = (fn: string, name: string, inserted: string, deleted: string, updated: string) => `
  CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    changed boolean;
  BEGIN
    IF TG_OP = 'TRUNCATE' THEN
      changed := true;
    ELSIF TG_OP = 'INSERT' THEN
      changed := ${inserted};
    ELSIF TG_OP = 'DELETE' THEN
      changed := ${deleted};
    ELSE
      changed := ${updated};
    END IF;
    IF changed THEN
      UPDATE search_versions SET version = version + 1 WHERE search_versions.name = '${name}';
    END IF;
    RETURN NULL;
  END $$`;

/**
 * One version number per copy a search process keeps in memory (the published courses' facts, the search documents,
 * the sentence vectors), raised by triggers in the transaction that changes what the copy holds. Every process
 * compares its copies with the tables every few seconds; it read stamps computed over the whole tables (at 20,000
 * courses 14 ms of PostgreSQL's CPU for the facts and 7 ms for the documents, per process and check), which took a
 * core from whatever search was running on a two-core machine. A version is one primary-key read.
 *
 * The triggers are per statement, over its transition tables, so a bulk load raises a version once; a write that
 * changes nothing a copy holds (an enrolment moving a head's popularity, a hosted-model vector) raises none. Writers
 * of one kind wait for each other's commit on the version row: catalogue edits and vector batches are rare and short.
 */
export class SearchVersions1764300005000 implements MigrationInterface {
  name = 'SearchVersions1764300005000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE search_versions (
        name varchar(40) PRIMARY KEY,
        version bigint NOT NULL DEFAULT 0
      )`);
    await q.query(`INSERT INTO search_versions (name) VALUES ('course_facts'), ('documents'), ('sentence_vectors')`);

    // The facts of published courses: a published head added or removed, or a fact of one changed (publishing too).
    await q.query(
      versioned(
        'search_heads_versioned',
        'course_facts',
        'EXISTS (SELECT 1 FROM new_rows WHERE published)',
        'EXISTS (SELECT 1 FROM old_rows WHERE published)',
        `EXISTS (SELECT 1 FROM old_rows o FULL JOIN new_rows n ON n.course_id = o.course_id
                  WHERE (coalesce(o.published, false) OR coalesce(n.published, false)) AND ${row('o')} IS DISTINCT FROM ${row('n')})`,
      ),
    );
    // A document added, removed or rebuilt (updated_at moves only then; a hosted-model vector leaves it).
    await q.query(
      versioned(
        'search_documents_versioned',
        'documents',
        'EXISTS (SELECT 1 FROM new_rows)',
        'EXISTS (SELECT 1 FROM old_rows)',
        `EXISTS (SELECT 1 FROM old_rows o FULL JOIN new_rows n ON n.course_id = o.course_id
                  WHERE o.course_id IS NULL OR n.course_id IS NULL OR o.updated_at IS DISTINCT FROM n.updated_at)`,
      ),
    );
    await q.query(
      versioned(
        'search_sentence_vectors_versioned',
        'sentence_vectors',
        'EXISTS (SELECT 1 FROM new_rows)',
        'EXISTS (SELECT 1 FROM old_rows)',
        'EXISTS (SELECT 1 FROM old_rows)',
      ),
    );

    for (const [table, fn] of [
      ['search_heads', 'search_heads_versioned'],
      ['search_documents', 'search_documents_versioned'],
      ['search_sentence_vectors', 'search_sentence_vectors_versioned'],
    ]) {
      await q.query(`CREATE TRIGGER ${table}_inserted AFTER INSERT ON ${table} REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`);
      await q.query(
        `CREATE TRIGGER ${table}_updated AFTER UPDATE ON ${table} REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
      );
      await q.query(`CREATE TRIGGER ${table}_deleted AFTER DELETE ON ${table} REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`);
      await q.query(`CREATE TRIGGER ${table}_truncated AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['search_heads', 'search_documents', 'search_sentence_vectors']) {
      for (const event of ['inserted', 'updated', 'deleted', 'truncated']) await q.query(`DROP TRIGGER ${table}_${event} ON ${table}`);
    }
    await q.query(`DROP FUNCTION search_sentence_vectors_versioned()`);
    await q.query(`DROP FUNCTION search_documents_versioned()`);
    await q.query(`DROP FUNCTION search_heads_versioned()`);
    await q.query(`DROP TABLE search_versions`);
  }
}
