import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { affected, Queryable, sql, sqlOne } from '../common/database';
import { Course } from './course.entity';
import { COURSE_LIST_COLUMNS, CourseListRow } from './course.mapper';
import type { Level } from './course-level';
import { Topic } from './topic.entity';
import { Tutor } from './tutor.entity';

/** A courses row; rating is numeric(2,1), which the driver answers as a string (null never: NOT NULL DEFAULT 0). */
interface CourseRow {
  id: number;
  title: string;
  description: string;
  category: string;
  level: Level;
  duration_minutes: number;
  rating: string | null;
  enrolled: number;
  credit_cost: number;
  thumbnail_url: string | null;
  preview_video_url: string | null;
  tutor_id: number;
  organisation: string | null;
  published: boolean;
  source_key: string | null;
  created_at: Date;
  updated_at: Date;
}

const COURSE_COLUMNS =
  'id, title, description, category, level, duration_minutes, rating, enrolled, credit_cost, thumbnail_url, preview_video_url, tutor_id, organisation, published, source_key, created_at, updated_at';

function toCourse(r: CourseRow): Course {
  return Object.assign(new Course(), {
    id: r.id,
    title: r.title,
    description: r.description,
    category: r.category,
    level: r.level,
    durationMinutes: r.duration_minutes,
    rating: r.rating === null ? 0 : Number(r.rating),
    enrolled: r.enrolled,
    creditCost: r.credit_cost,
    thumbnailUrl: r.thumbnail_url,
    previewVideoUrl: r.preview_video_url,
    tutorId: r.tutor_id,
    organisation: r.organisation,
    published: r.published,
    sourceKey: r.source_key,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  });
}

/** id: serial; name, avatar_url, organisation: varchar; bio: text; created_at: timestamptz. */
interface TutorRow {
  id: number;
  name: string;
  bio: string;
  avatar_url: string | null;
  organisation: string | null;
  created_at: Date;
}

/** id, course_id, position, duration_minutes: int; title: varchar. */
interface TopicRow {
  id: number;
  course_id: number;
  position: number;
  title: string;
  duration_minutes: number;
  has_quiz: boolean;
  is_preview: boolean;
}

/** One topic row as written by the admin API and the catalogue loader, keyed by (course, position). */
export interface TopicWrite {
  courseId: number;
  position: number;
  title: string;
  durationMinutes: number;
  hasQuiz: boolean;
  isPreview: boolean;
}

/** What the catalogue list filters on. */
export interface CourseListFilter {
  category?: string;
  level?: string;
}

/** id: serial; title: varchar; credit_cost, total_topics: int. */
export interface CourseFactsRow {
  id: number;
  title: string;
  credit_cost: number;
  total_topics: number;
}

/** Every query of the courses feature (courses, tutors, topics and the enrolment counter functions). */
@Injectable()
export class CoursesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  // ---- catalogue reads ----

  async findCourse(id: number, onlyPublished: boolean): Promise<Course | null> {
    const row = await sqlOne<CourseRow>(this.dataSource, `SELECT ${COURSE_COLUMNS} FROM courses WHERE id = $1${onlyPublished ? ' AND published' : ''}`, [id]);
    return row && toCourse(row);
  }

  async findTutor(id: number, db: Queryable = this.dataSource): Promise<Tutor | null> {
    const row = await sqlOne<TutorRow>(db, `SELECT id, name, bio, avatar_url, organisation, created_at FROM tutors WHERE id = $1`, [id]);
    return (
      row &&
      Object.assign(new Tutor(), {
        id: row.id,
        name: row.name,
        bio: row.bio,
        avatarUrl: row.avatar_url,
        organisation: row.organisation,
        createdAt: row.created_at,
      })
    );
  }

  async topicsOf(courseId: number, db: Queryable = this.dataSource): Promise<Topic[]> {
    const rows = await sql<TopicRow>(
      db,
      `SELECT id, course_id, position, title, duration_minutes, has_quiz, is_preview FROM topics WHERE course_id = $1 ORDER BY position ASC`,
      [courseId],
    );
    return rows.map((r) =>
      Object.assign(new Topic(), {
        id: r.id,
        courseId: r.course_id,
        position: r.position,
        title: r.title,
        durationMinutes: r.duration_minutes,
        hasQuiz: r.has_quiz,
        isPreview: r.is_preview,
      }),
    );
  }

  /**
   * A page of published list items with the filtered total (count(*) OVER (): bigint, answered as a string).
   * `order` is one of the service's fixed ORDER BY clauses, never request text.
   */
  listPage(filter: CourseListFilter, order: string, limit: number, offset: number): Promise<Array<CourseListRow & { total: string }>> {
    const { where, params } = listWhere(filter);
    return sql<CourseListRow & { total: string }>(
      this.dataSource,
      `SELECT ${COURSE_LIST_COLUMNS}, count(*) OVER () AS total
         FROM courses c JOIN tutors t ON t.id = c.tutor_id
        WHERE ${where}
        ORDER BY ${order}
        LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, limit, offset],
    );
  }

  /** The filtered total alone, for a page past the end (where the window count has no row to ride on). */
  async listCount(filter: CourseListFilter): Promise<number> {
    const { where, params } = listWhere(filter);
    // An aggregate without GROUP BY always answers one row.
    const row = await sqlOne<{ count: number }>(this.dataSource, `SELECT count(*)::int AS count FROM courses c WHERE ${where}`, params);
    return row?.count ?? 0;
  }

  /** Facts of a published course with its topic count, in one statement (the enrolment's only course read). */
  facts(courseId: number, db: Queryable = this.dataSource): Promise<CourseFactsRow | null> {
    return sqlOne<CourseFactsRow>(
      db,
      `SELECT c.id, c.title, c.credit_cost, (SELECT count(*)::int FROM topics t WHERE t.course_id = c.id) AS total_topics
         FROM courses c WHERE c.id = $1 AND c.published`,
      [courseId],
    );
  }

  /** Titles of any courses, published or not. */
  async titles(ids: number[], db: Queryable = this.dataSource): Promise<Map<number, string>> {
    if (!ids.length) return new Map();
    // id: serial; title: varchar
    const rows = await sql<{ id: number; title: string }>(db, `SELECT id, title FROM courses WHERE id = ANY($1::int[])`, [[...new Set(ids)]]);
    return new Map(rows.map((r) => [r.id, r.title]));
  }

  /** Title and category of a published course, for its generated thumbnail. */
  thumbnailFacts(id: number): Promise<{ title: string; category: string } | null> {
    return sqlOne<{ title: string; category: string }>(this.dataSource, 'SELECT title, category FROM courses WHERE id = $1 AND published', [id]);
  }

  tutorName(id: number): Promise<{ name: string } | null> {
    return sqlOne<{ name: string }>(this.dataSource, 'SELECT name FROM tutors WHERE id = $1', [id]);
  }

  // ---- enrolment counts (SQL functions of migration EnrollmentCountShards) ----

  async enrolled(courseId: number): Promise<number> {
    // course_enrolled(): int, null for an unknown course
    const row = await sqlOne<{ enrolled: number | null }>(this.dataSource, 'SELECT course_enrolled($1) AS enrolled', [courseId]);
    return row?.enrolled ?? 0;
  }

  async foldEnrollmentCounts(): Promise<number> {
    // fold_enrollment_counts(): int, courses changed
    const row = await sqlOne<{ folded: number }>(this.dataSource, 'SELECT fold_enrollment_counts() AS folded');
    return row!.folded;
  }

  // ---- admin writes ----

  saveCourse(em: EntityManager, course: Partial<Course>): Promise<Course> {
    return em.save(em.create(Course, course));
  }

  async updateCourse(em: EntityManager, course: Course): Promise<void> {
    await em.save(course);
  }

  lockCourse(em: EntityManager, id: number): Promise<Course | null> {
    return em.findOne(Course, { where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  /** True when the course exists. */
  async setPublished(id: number, published: boolean, at: Date): Promise<boolean> {
    return (await affected(this.dataSource, 'UPDATE courses SET published = $2, updated_at = $3 WHERE id = $1', [id, published, at])) > 0;
  }

  /** The id of a tutor with this name and organisation (null and '' are one organisation), or null. */
  async tutorIdByName(em: EntityManager, name: string, organisation: string | null): Promise<number | null> {
    const row = await sqlOne<{ id: number }>(em, `SELECT id FROM tutors WHERE name = $1 AND coalesce(organisation, '') = $2`, [name, organisation ?? '']);
    return row?.id ?? null;
  }

  insertTutor(em: EntityManager, tutor: Pick<Tutor, 'name' | 'bio' | 'avatarUrl' | 'organisation'>): Promise<Tutor> {
    return em.save(em.create(Tutor, tutor));
  }

  /**
   * The one topic upsert (admin API and catalogue loader): rows are updated in place by (course, position), so topic
   * ids survive an edit or a reload wherever a position remains.
   */
  async upsertTopics(em: EntityManager, topics: TopicWrite[]): Promise<void> {
    if (!topics.length) return;
    await em.query(
      `INSERT INTO topics (course_id, position, title, duration_minutes, has_quiz, is_preview)
       SELECT * FROM unnest($1::int[], $2::int[], $3::text[], $4::int[], $5::bool[], $6::bool[])
       ON CONFLICT (course_id, position) DO UPDATE SET
         title = EXCLUDED.title, duration_minutes = EXCLUDED.duration_minutes, has_quiz = EXCLUDED.has_quiz, is_preview = EXCLUDED.is_preview`,
      [
        topics.map((t) => t.courseId),
        topics.map((t) => t.position),
        topics.map((t) => t.title),
        topics.map((t) => t.durationMinutes),
        topics.map((t) => t.hasQuiz),
        topics.map((t) => t.isPreview),
      ],
    );
  }

  /** Drops each course's topics past its new topic count. */
  async trimTopics(em: EntityManager, courseIds: number[], topicCounts: number[]): Promise<void> {
    await em.query(
      `DELETE FROM topics t USING unnest($1::int[], $2::int[]) AS k(course_id, topic_count)
       WHERE t.course_id = k.course_id AND t.position > k.topic_count`,
      [courseIds, topicCounts],
    );
  }

  // ---- catalogue loader ----

  /**
   * Prepares a bulk load's transaction: no statement time limit (each statement stays under the client's read
   * timeout by working in batches), and search documents built once at the end (searchRefresh) rather than by the
   * triggers on every batch that touches a course.
   */
  async startBulkLoad(em: EntityManager): Promise<void> {
    await em.query(`SET LOCAL statement_timeout = 0`);
    await em.query(`SET LOCAL search.defer_refresh = 'on'`);
  }

  /**
   * Builds the search documents of these courses and flushes what the deferred triggers queued. The search feature
   * owns these SQL functions (its migrations define them); they are the same ones its triggers call after any other
   * catalogue change, so a bulk load ends with the same documents a course edit would leave.
   */
  async searchRefresh(em: EntityManager, courseIdBatches: number[][]): Promise<void> {
    for (const ids of courseIdBatches) await em.query('SELECT search_refresh_documents($1::int[])', [ids]);
    await em.query('SELECT search_flush_pending()');
  }

  /** Waits (polling) for the catalogue load lock of this transaction. */
  async lockCatalogueLoad(em: EntityManager, key: number): Promise<void> {
    // A SELECT without FROM: always one row, locked boolean.
    while (!(await sqlOne<{ locked: boolean }>(em, 'SELECT pg_try_advisory_xact_lock($1) AS locked', [key]))!.locked) {
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  async hasCourses(em: EntityManager): Promise<boolean> {
    // A SELECT without FROM: always one row, present boolean.
    return (await sqlOne<{ present: boolean }>(em, 'SELECT EXISTS (SELECT 1 FROM courses) AS present'))!.present;
  }

  /**
   * Upserts loaded courses by source_key. `enrolled` seeds a new course only: afterwards it is the count enrolments
   * keep (folded from their shards).
   */
  upsertLoadedCourses(
    em: EntityManager,
    rows: Array<
      Pick<Course, 'title' | 'description' | 'category' | 'level' | 'durationMinutes' | 'rating' | 'enrolled' | 'creditCost' | 'organisation' | 'tutorId'> & {
        sourceKey: string;
      }
    >,
  ): Promise<Array<{ id: number; source_key: string; created: boolean }>> {
    // id: serial; source_key: varchar; created: bool (xmax = 0)
    return sql<{ id: number; source_key: string; created: boolean }>(
      em,
      `INSERT INTO courses (source_key, title, description, category, level, duration_minutes, rating, enrolled, credit_cost, organisation, tutor_id, published)
       SELECT *, true FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::numeric[], $8::int[], $9::int[], $10::text[], $11::int[])
       ON CONFLICT (source_key) DO UPDATE SET
         title = EXCLUDED.title, description = EXCLUDED.description, category = EXCLUDED.category, level = EXCLUDED.level,
         duration_minutes = EXCLUDED.duration_minutes, rating = EXCLUDED.rating,
         credit_cost = EXCLUDED.credit_cost, organisation = EXCLUDED.organisation, tutor_id = EXCLUDED.tutor_id, updated_at = now()
       RETURNING id, source_key, (xmax = 0) AS created`,
      [
        rows.map((c) => c.sourceKey),
        rows.map((c) => c.title),
        rows.map((c) => c.description),
        rows.map((c) => c.category),
        rows.map((c) => c.level),
        rows.map((c) => c.durationMinutes),
        rows.map((c) => c.rating),
        rows.map((c) => c.enrolled),
        rows.map((c) => c.creditCost),
        rows.map((c) => c.organisation),
        rows.map((c) => c.tutorId),
      ],
    );
  }

  /** Inserts missing tutors (an existing tutor's edited bio is kept) and returns the ids of all of them. */
  async upsertTutors(
    em: EntityManager,
    tutors: Array<Pick<Tutor, 'name' | 'bio' | 'organisation'>>,
  ): Promise<Array<{ id: number; name: string; organisation: string | null }>> {
    const names = tutors.map((t) => t.name);
    const organisations = tutors.map((t) => t.organisation);
    await em.query(
      `INSERT INTO tutors (name, bio, organisation) SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
       ON CONFLICT (name, (coalesce(organisation, ''))) DO NOTHING`,
      [names, tutors.map((t) => t.bio), organisations],
    );
    // id: serial; name: varchar; organisation: varchar or null
    return sql<{ id: number; name: string; organisation: string | null }>(
      em,
      `SELECT t.id, t.name, t.organisation FROM tutors t
       JOIN unnest($1::text[], $2::text[]) AS k(name, organisation)
         ON t.name = k.name AND coalesce(t.organisation, '') = coalesce(k.organisation, '')`,
      [names, organisations],
    );
  }
}

function listWhere(filter: CourseListFilter): { where: string; params: unknown[] } {
  const params: unknown[] = [];
  const where = ['c.published'];
  if (filter.category) {
    params.push(filter.category.toLowerCase());
    where.push(`lower(c.category) = $${params.length}`);
  }
  if (filter.level) {
    params.push(filter.level);
    where.push(`c.level = $${params.length}`);
  }
  return { where: where.join(' AND '), params };
}
