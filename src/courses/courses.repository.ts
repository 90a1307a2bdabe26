import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { affected, prepared, Queryable, sql, sqlOne } from '../common/database';
import type { Level } from './course-level';

/** A course as the catalogue and the admin API see it. */
export interface Course {
  id: number;
  title: string;
  description: string;
  category: string;
  level: Level;
  durationMinutes: number;
  rating: number;
  /** The folded count; responses add the shards (CoursesService.enrolled). */
  enrolled: number;
  creditCost: number;
  thumbnailUrl: string | null;
  previewVideoUrl: string | null;
  tutorId: number;
  organisation: string | null;
  published: boolean;
  /** The catalogue file's key of a loaded course; null for one made through the admin API. */
  sourceKey: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface Tutor {
  id: number;
  name: string;
  bio: string;
  avatarUrl: string | null;
  organisation: string | null;
  createdAt: Date;
}

export interface Topic {
  id: number;
  courseId: number;
  position: number;
  title: string;
  durationMinutes: number;
  hasQuiz: boolean;
  isPreview: boolean;
}

/** The columns an admin write sets on a course. */
export type CourseWrite = Omit<Course, 'id' | 'createdAt' | 'updatedAt'>;

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
  return {
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
  };
}

interface TutorRow {
  id: number;
  name: string;
  bio: string;
  avatar_url: string | null;
  organisation: string | null;
  created_at: Date;
}

const TUTOR_COLUMNS = 'id, name, bio, avatar_url, organisation, created_at';

function toTutor(r: TutorRow): Tutor {
  return { id: r.id, name: r.name, bio: r.bio, avatarUrl: r.avatar_url, organisation: r.organisation, createdAt: r.created_at };
}

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
export type TopicWrite = Omit<Topic, 'id'>;

/** What the catalogue list filters on. */
export interface CourseListFilter {
  category?: string;
  level?: string;
}

/**
 * The columns a course list item needs, over `courses c JOIN tutors t` (the catalogue list, and search's results
 * through CoursesService); `enrolled` is the exact count, shards included.
 */
const COURSE_LIST_COLUMNS = `c.id, c.title, c.category, c.level, c.duration_minutes, c.rating, course_enrolled(c.id) AS enrolled, c.credit_cost, c.thumbnail_url,
              t.id AS tutor_id, t.name AS tutor_name, t.avatar_url AS tutor_avatar_url`;

/** A row selected with COURSE_LIST_COLUMNS. */
export interface CourseListRow {
  id: number;
  title: string;
  category: string;
  level: Level;
  duration_minutes: number;
  /** numeric(2,1): the driver answers numerics as strings. */
  rating: string;
  enrolled: number;
  credit_cost: number;
  thumbnail_url: string | null;
  tutor_id: number;
  tutor_name: string;
  tutor_avatar_url: string | null;
}

export interface CourseFactsRow {
  id: number;
  title: string;
  credit_cost: number;
  total_topics: number;
}

/** Read by every enrolment. */
const FACTS = prepared(
  `SELECT c.id, c.title, c.credit_cost, (SELECT count(*)::int FROM topics t WHERE t.course_id = c.id) AS total_topics
     FROM courses c WHERE c.id = $1 AND c.published`,
);

/**
 * Read by every search (its page of results): prepared, as its plan (the primary key) never changes, and parsing and
 * planning it was a third of its CPU.
 */
const PUBLISHED_LIST_ROWS = prepared(
  `SELECT ${COURSE_LIST_COLUMNS}
     FROM courses c JOIN tutors t ON t.id = c.tutor_id
    WHERE c.id = ANY($1) AND c.published`,
);

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
    const row = await sqlOne<TutorRow>(db, `SELECT ${TUTOR_COLUMNS} FROM tutors WHERE id = $1`, [id]);
    return row && toTutor(row);
  }

  async topicsOf(courseId: number, db: Queryable = this.dataSource): Promise<Topic[]> {
    const rows = await sql<TopicRow>(
      db,
      `SELECT id, course_id, position, title, duration_minutes, has_quiz, is_preview FROM topics WHERE course_id = $1 ORDER BY position ASC`,
      [courseId],
    );
    return rows.map((r) => ({
      id: r.id,
      courseId: r.course_id,
      position: r.position,
      title: r.title,
      durationMinutes: r.duration_minutes,
      hasQuiz: r.has_quiz,
      isPreview: r.is_preview,
    }));
  }

  /**
   * A page of published list items with the filtered total (count(*): bigint, answered as a string). The page is
   * chosen on `courses` alone and only its rows are joined to their tutors and get their exact enrolment count, so a
   * catalogue cache refresh costs PostgreSQL a page's rows rather than every filtered row with its tutor and
   * `course_enrolled()`. Every course has its tutor (`tutor_id` is NOT NULL and a foreign key): the total counted on
   * `courses` is the join's. `order` is one of the service's fixed ORDER BY clauses, never request text.
   */
  listPage(filter: CourseListFilter, order: string, limit: number, offset: number): Promise<Array<CourseListRow & { total: string }>> {
    const { where, params } = listWhere(filter);
    return sql<CourseListRow & { total: string }>(
      this.dataSource,
      `SELECT ${COURSE_LIST_COLUMNS}, (SELECT count(*) FROM courses c WHERE ${where}) AS total
         FROM (SELECT * FROM courses c WHERE ${where} ORDER BY ${order} LIMIT $${params.length + 1} OFFSET $${params.length + 2}) c
         JOIN tutors t ON t.id = c.tutor_id
        ORDER BY ${order}`,
      [...params, limit, offset],
    );
  }

  /** The filtered total alone, for a page past the end (where no row carries it). */
  async listCount(filter: CourseListFilter): Promise<number> {
    const { where, params } = listWhere(filter);
    const row = await sqlOne<{ count: number }>(this.dataSource, `SELECT count(*)::int AS count FROM courses c WHERE ${where}`, params);
    return row?.count ?? 0;
  }

  /** Facts of a published course with its topic count, in one statement (the enrolment's only course read). */
  facts(courseId: number, db: Queryable = this.dataSource): Promise<CourseFactsRow | null> {
    return sqlOne<CourseFactsRow>(db, FACTS, [courseId]);
  }

  /** Titles of any courses, published or not. */
  async titles(ids: number[], db: Queryable = this.dataSource): Promise<Map<number, string>> {
    if (!ids.length) return new Map();
    const rows = await sql<{ id: number; title: string }>(db, `SELECT id, title FROM courses WHERE id = ANY($1::int[])`, [[...new Set(ids)]]);
    return new Map(rows.map((r) => [r.id, r.title]));
  }

  /** Published courses with these ids as list rows (those that exist): courses joined to tutors, one round trip. */
  publishedListRows(ids: number[], db: Queryable = this.dataSource): Promise<CourseListRow[]> {
    if (!ids.length) return Promise.resolve([]);
    return sql<CourseListRow>(db, PUBLISHED_LIST_ROWS, [ids]);
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
    // null for an unknown course
    const row = await sqlOne<{ enrolled: number | null }>(this.dataSource, 'SELECT course_enrolled($1) AS enrolled', [courseId]);
    return row?.enrolled ?? 0;
  }

  async foldEnrollmentCounts(): Promise<number> {
    const row = await sqlOne<{ folded: number }>(this.dataSource, 'SELECT fold_enrollment_counts() AS folded');
    return row!.folded;
  }

  // ---- admin writes ----

  async insertCourse(em: EntityManager, course: CourseWrite): Promise<Course> {
    const [row] = await sql<CourseRow>(
      em,
      `INSERT INTO courses (title, description, category, level, duration_minutes, rating, enrolled, credit_cost, thumbnail_url, preview_video_url,
                            tutor_id, organisation, published, source_key)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING ${COURSE_COLUMNS}`,
      [
        course.title,
        course.description,
        course.category,
        course.level,
        course.durationMinutes,
        course.rating,
        course.enrolled,
        course.creditCost,
        course.thumbnailUrl,
        course.previewVideoUrl,
        course.tutorId,
        course.organisation,
        course.published,
        course.sourceKey,
      ],
    );
    return toCourse(row);
  }

  /** Writes the admin-editable columns; `enrolled` is left to the counter and `published` to setPublished. */
  async updateCourse(em: EntityManager, course: Course): Promise<void> {
    await affected(
      em,
      `UPDATE courses SET title = $2, description = $3, category = $4, level = $5, duration_minutes = $6, rating = $7, credit_cost = $8,
                          thumbnail_url = $9, preview_video_url = $10, tutor_id = $11, organisation = $12, updated_at = $13
        WHERE id = $1`,
      [
        course.id,
        course.title,
        course.description,
        course.category,
        course.level,
        course.durationMinutes,
        course.rating,
        course.creditCost,
        course.thumbnailUrl,
        course.previewVideoUrl,
        course.tutorId,
        course.organisation,
        course.updatedAt,
      ],
    );
  }

  async lockCourse(em: EntityManager, id: number): Promise<Course | null> {
    const row = await sqlOne<CourseRow>(em, `SELECT ${COURSE_COLUMNS} FROM courses WHERE id = $1 FOR UPDATE`, [id]);
    return row && toCourse(row);
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

  async insertTutor(em: EntityManager, tutor: Pick<Tutor, 'name' | 'bio' | 'avatarUrl' | 'organisation'>): Promise<Tutor> {
    const [row] = await sql<TutorRow>(em, `INSERT INTO tutors (name, bio, avatar_url, organisation) VALUES ($1, $2, $3, $4) RETURNING ${TUTOR_COLUMNS}`, [
      tutor.name,
      tutor.bio,
      tutor.avatarUrl,
      tutor.organisation,
    ]);
    return toTutor(row);
  }

  /**
   * The one topic upsert (admin API and catalogue loader): rows are updated in place by (course, position), so topic
   * ids survive an edit or a reload wherever a position remains.
   */
  async upsertTopics(em: EntityManager, topics: TopicWrite[]): Promise<void> {
    if (!topics.length) return;
    await sql(
      em,
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
    await affected(
      em,
      `DELETE FROM topics t USING unnest($1::int[], $2::int[]) AS k(course_id, topic_count)
       WHERE t.course_id = k.course_id AND t.position > k.topic_count`,
      [courseIds, topicCounts],
    );
  }

  // ---- catalogue loader ----

  /**
   * Prepares a bulk load's transaction: no statement time limit (each statement stays under the client's read
   * timeout by working in batches).
   */
  async startBulkLoad(em: EntityManager): Promise<void> {
    await sql(em, `SET LOCAL statement_timeout = 0`);
  }

  /** Waits (polling) for the catalogue load lock of this transaction. */
  async lockCatalogueLoad(em: EntityManager, key: number): Promise<void> {
    while (!(await sqlOne<{ locked: boolean }>(em, 'SELECT pg_try_advisory_xact_lock($1) AS locked', [key]))!.locked) {
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  async hasCourses(em: EntityManager): Promise<boolean> {
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
    // created: xmax = 0 only for a row this statement inserted.
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
    await sql(
      em,
      `INSERT INTO tutors (name, bio, organisation) SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
       ON CONFLICT (name, (coalesce(organisation, ''))) DO NOTHING`,
      [names, tutors.map((t) => t.bio), organisations],
    );
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
