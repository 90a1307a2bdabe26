import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { join } from 'node:path';
import { DataSource, EntityManager } from 'typeorm';
import { sqlOne } from '../../common/database';
import { projectRoot } from '../../common/project-root';
import { CatalogueCache } from '../catalogue-cache';
import { CatalogueCourse, buildCatalogue, readCatalogueFiles } from './build-catalogue';

export interface CatalogueLoadResult {
  courses: number;
  topics: number;
  tutors: number;
  created: number;
  updated: number;
}

// Rows per statement: large enough to load ~2,000 courses in a handful of round trips, small enough to keep each statement short.
const BATCH = 500;
// Serialises loads across API instances starting at once (pg_advisory_xact_lock key).
const LOAD_LOCK = 7_204_212;

const tutorKey = (name: string, organisation: string | null) => `${name}\u0000${organisation ?? ''}`;

// Search documents per statement: building them is the heavy part, and each statement must stay well within the
// client's read timeout (REQUEST_TIMEOUT_MS) even on a busy machine.
const REFRESH_BATCH = 100;

function chunks<T>(items: T[], size = BATCH): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Loads the demo catalogue (data/*.csv) into the database. Idempotent: courses are keyed by source_key,
 * tutors by (name, organisation), topics by (course, position), so loading twice changes nothing.
 */
@Injectable()
export class CatalogueLoader {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cache: CatalogueCache,
  ) {}

  load(dir?: string): Promise<CatalogueLoadResult> {
    return this.run(false, dir) as Promise<CatalogueLoadResult>;
  }

  /** Loads only into an empty catalogue (first start); null when courses already exist. */
  loadIfEmpty(dir?: string): Promise<CatalogueLoadResult | null> {
    return this.run(true, dir);
  }

  private async run(onlyIfEmpty: boolean, dir = join(projectRoot(), 'data')): Promise<CatalogueLoadResult | null> {
    // The cheap check first, so a normal start does not parse the files at all.
    if (onlyIfEmpty && (await this.hasCourses(this.dataSource.manager))) return null;
    const catalogue = buildCatalogue(readCatalogueFiles(dir));
    const result = await this.dataSource.transaction(async (em) => {
      // A bulk load is not a request: no statement time limit for it (each statement stays under the client's
      // read timeout by working in batches), and the lock is polled rather than waited on in one statement.
      await em.query(`SET LOCAL statement_timeout = 0`);
      await this.lock(em);
      // Checked again under the lock: another instance may have loaded meanwhile.
      if (onlyIfEmpty && (await this.hasCourses(em))) return null;
      // Search documents are built once, at the end of upsert, not again by every batch that touches a course.
      await em.query(`SET LOCAL search.defer_refresh = 'on'`);
      return this.upsert(em, catalogue);
    });
    if (result) await this.cache.invalidate();
    return result;
  }

  /** Takes the load lock of this transaction, waiting for another instance's load to finish first. */
  private async lock(em: EntityManager): Promise<void> {
    // A SELECT without FROM: always one row, locked boolean.
    while (!(await sqlOne<{ locked: boolean }>(em, 'SELECT pg_try_advisory_xact_lock($1) AS locked', [LOAD_LOCK]))!.locked) {
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  private async hasCourses(em: EntityManager): Promise<boolean> {
    // A SELECT without FROM: always one row, present boolean.
    const { present } = (await sqlOne<{ present: boolean }>(em, 'SELECT EXISTS (SELECT 1 FROM courses) AS present'))!;
    return present;
  }

  private async upsert(em: EntityManager, catalogue: CatalogueCourse[]): Promise<CatalogueLoadResult> {
    const tutorIds = await this.upsertTutors(em, catalogue);
    let created = 0;
    const courseIds = new Map<string, number>();
    for (const batch of chunks(catalogue)) {
      // `enrolled` seeds a new course only: afterwards it is the count enrolments keep (folded from their shards).
      const rows: Array<{ id: number; source_key: string; created: boolean }> = await em.query(
        `INSERT INTO courses (source_key, title, description, category, level, duration_minutes, rating, enrolled, credit_cost, organisation, tutor_id, published)
         SELECT *, true FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::numeric[], $8::int[], $9::int[], $10::text[], $11::int[])
         ON CONFLICT (source_key) DO UPDATE SET
           title = EXCLUDED.title, description = EXCLUDED.description, category = EXCLUDED.category, level = EXCLUDED.level,
           duration_minutes = EXCLUDED.duration_minutes, rating = EXCLUDED.rating,
           credit_cost = EXCLUDED.credit_cost, organisation = EXCLUDED.organisation, tutor_id = EXCLUDED.tutor_id, updated_at = now()
         RETURNING id, source_key, (xmax = 0) AS created`,
        [
          batch.map((c) => c.sourceKey),
          batch.map((c) => c.title),
          batch.map((c) => c.description),
          batch.map((c) => c.category),
          batch.map((c) => c.level),
          batch.map((c) => c.durationMinutes),
          batch.map((c) => c.rating),
          batch.map((c) => c.enrolled),
          batch.map((c) => c.creditCost),
          batch.map((c) => c.organisation),
          batch.map((c) => tutorIds.get(tutorKey(c.tutor.name, c.tutor.organisation))),
        ],
      );
      for (const row of rows) {
        courseIds.set(row.source_key, row.id);
        if (row.created) created++;
      }
    }
    const topics = await this.upsertTopics(em, catalogue, courseIds);
    for (const ids of chunks([...courseIds.values()], REFRESH_BATCH)) await em.query('SELECT search_refresh_documents($1::int[])', [ids]);
    await em.query('SELECT search_flush_pending()');
    return { courses: catalogue.length, topics, tutors: tutorIds.size, created, updated: catalogue.length - created };
  }

  /** Inserts missing tutors (an existing tutor's edited bio is kept) and returns every tutor's id by (name, organisation). */
  private async upsertTutors(em: EntityManager, catalogue: CatalogueCourse[]): Promise<Map<string, number>> {
    const unique = new Map(catalogue.map((c) => [tutorKey(c.tutor.name, c.tutor.organisation), c.tutor]));
    const ids = new Map<string, number>();
    for (const batch of chunks([...unique.values()])) {
      const names = batch.map((t) => t.name);
      const organisations = batch.map((t) => t.organisation);
      await em.query(
        `INSERT INTO tutors (name, bio, organisation) SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
         ON CONFLICT (name, (coalesce(organisation, ''))) DO NOTHING`,
        [names, batch.map((t) => t.bio), organisations],
      );
      const rows: Array<{ id: number; name: string; organisation: string | null }> = await em.query(
        `SELECT t.id, t.name, t.organisation FROM tutors t
         JOIN unnest($1::text[], $2::text[]) AS k(name, organisation)
           ON t.name = k.name AND coalesce(t.organisation, '') = coalesce(k.organisation, '')`,
        [names, organisations],
      );
      for (const row of rows) ids.set(tutorKey(row.name, row.organisation), row.id);
    }
    return ids;
  }

  /** Upserts topics by (course, position) so their ids survive a reload, then drops positions the course no longer has. */
  private async upsertTopics(em: EntityManager, catalogue: CatalogueCourse[], courseIds: Map<string, number>): Promise<number> {
    const rows = catalogue.flatMap((c) => c.topics.map((t, i) => ({ ...t, courseId: courseIds.get(c.sourceKey)!, position: i + 1 })));
    for (const batch of chunks(rows)) {
      await em.query(
        `INSERT INTO topics (course_id, position, title, duration_minutes, has_quiz, is_preview)
         SELECT * FROM unnest($1::int[], $2::int[], $3::text[], $4::int[], $5::bool[], $6::bool[])
         ON CONFLICT (course_id, position) DO UPDATE SET
           title = EXCLUDED.title, duration_minutes = EXCLUDED.duration_minutes, has_quiz = EXCLUDED.has_quiz, is_preview = EXCLUDED.is_preview`,
        [
          batch.map((t) => t.courseId),
          batch.map((t) => t.position),
          batch.map((t) => t.title),
          batch.map((t) => t.durationMinutes),
          batch.map((t) => t.hasQuiz),
          batch.map((t) => t.isPreview),
        ],
      );
    }
    await em.query(
      `DELETE FROM topics t USING unnest($1::int[], $2::int[]) AS k(course_id, topic_count)
       WHERE t.course_id = k.course_id AND t.position > k.topic_count`,
      [catalogue.map((c) => courseIds.get(c.sourceKey)!), catalogue.map((c) => c.topics.length)],
    );
    return rows.length;
  }
}
