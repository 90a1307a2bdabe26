import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { sql, sqlOne } from '../common/database';
import { DomainError } from '../common/errors';
import { offsetOf, pageOf } from '../common/pagination';
import { SerializedBody } from '../common/serialized-body';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { CatalogueCache } from './catalogue-cache';
import { Course } from './course.entity';
import { COURSE_LIST_COLUMNS, CourseListRow, CourseUrls, rowToCourseListItem, toCourseDetail } from './course.mapper';
import { CourseDetailDto, CourseListDto } from './dto/course.dto';
import { CourseSort, ListCoursesQuery } from './dto/list-courses.query';
import { Topic } from './topic.entity';
import { Tutor } from './tutor.entity';

const ORDER: Record<CourseSort, string> = {
  popular: 'c.enrolled DESC, c.id ASC',
  rating: 'c.rating DESC, c.enrolled DESC, c.id ASC',
  newest: 'c.created_at DESC, c.id DESC',
  title: 'lower(c.title) ASC, c.id ASC',
};

/** What another module may learn about a course it is about to use (enrolment, certificates). */
export interface CourseFacts {
  id: number;
  title: string;
  creditCost: number;
  totalTopics: number;
}

@Injectable()
export class CoursesService {
  readonly urls: CourseUrls;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cache: CatalogueCache,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.urls = new CourseUrls(config.publicBaseUrl);
  }

  /** An enrolment just committed here: this process's next catalogue read shows the new count (read your writes). */
  enrollmentCounted(): void {
    this.cache.clearLocal();
  }

  /** The list's envelope, serialised once per query and catalogue version, with its ETag. */
  list(query: ListCoursesQuery): Promise<SerializedBody<CourseListDto>> {
    const key = `list:${query.category?.toLowerCase() ?? ''}:${query.level ?? ''}:${query.sort}:${query.page}:${query.limit}`;
    return this.cache.getOrLoad(key, async () => new SerializedBody(await this.loadList(query)));
  }

  async get(id: number): Promise<CourseDetailDto> {
    return (await this.detail(id)).data;
  }

  /** The detail's envelope, serialised once per course and catalogue version, with its ETag. */
  detail(id: number): Promise<SerializedBody<CourseDetailDto>> {
    return this.cache.getOrLoad(`detail:${id}`, async () => {
      const course = await this.dataSource.getRepository(Course).findOne({ where: { id, published: true } });
      if (!course) throw new DomainError('course_not_found');
      const [tutor, topics, enrolled] = await Promise.all([
        this.dataSource.getRepository(Tutor).findOneByOrFail({ id: course.tutorId }),
        this.dataSource.getRepository(Topic).find({ where: { courseId: id }, order: { position: 'ASC' } }),
        this.enrolled(id),
      ]);
      return new SerializedBody(toCourseDetail({ ...course, enrolled }, tutor, topics, this.urls));
    });
  }

  /**
   * The exact enrolment count: `courses.enrolled` (folded every second by EnrollmentCountFolder) plus the counter
   * shards that enrolments add to at COMMIT (migration EnrollmentCountShards). Every response showing `enrolled`
   * reads this, never the column alone.
   */
  async enrolled(courseId: number): Promise<number> {
    const [row]: Array<{ enrolled: number | null }> = await this.dataSource.query('SELECT course_enrolled($1) AS enrolled', [courseId]);
    return row?.enrolled ?? 0;
  }

  /** Folds the counter shards into `courses.enrolled` (one statement); returns how many courses changed. */
  async foldEnrollmentCounts(): Promise<number> {
    const [row]: Array<{ folded: number }> = await this.dataSource.query('SELECT fold_enrollment_counts() AS folded');
    return row.folded;
  }

  /** Facts of a published course, e.g. its cost before enrolling. */
  async facts(em: EntityManager, courseId: number): Promise<CourseFacts | null> {
    const rows: Array<{ id: number; title: string; credit_cost: number; total_topics: number }> = await em.query(
      `SELECT c.id, c.title, c.credit_cost, (SELECT count(*)::int FROM topics t WHERE t.course_id = c.id) AS total_topics
         FROM courses c WHERE c.id = $1 AND c.published`,
      [courseId],
    );
    const row = rows[0];
    return row ? { id: row.id, title: row.title, creditCost: row.credit_cost, totalTopics: row.total_topics } : null;
  }

  /** Topics of a course in order, for progress tracking. */
  topics(em: EntityManager, courseId: number): Promise<Topic[]> {
    return em.getRepository(Topic).find({ where: { courseId }, order: { position: 'ASC' } });
  }

  private async loadList(query: ListCoursesQuery): Promise<CourseListDto> {
    const params: unknown[] = [];
    const where = ['c.published'];
    if (query.category) {
      params.push(query.category.toLowerCase());
      where.push(`lower(c.category) = $${params.length}`);
    }
    if (query.level) {
      params.push(query.level);
      where.push(`c.level = $${params.length}`);
    }
    const whereSql = where.join(' AND ');
    params.push(query.limit, offsetOf(query));
    // total: count(*) OVER () is a bigint, which the driver answers as a string.
    const rows = await sql<CourseListRow & { total: string }>(
      this.dataSource,
      `SELECT ${COURSE_LIST_COLUMNS}, count(*) OVER () AS total
         FROM courses c JOIN tutors t ON t.id = c.tutor_id
        WHERE ${whereSql}
        ORDER BY ${ORDER[query.sort]}
        LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
    let total = rows.length ? Number(rows[0].total) : 0;
    if (!rows.length && query.page > 1) {
      const counted = await sqlOne<{ count: number }>(this.dataSource, `SELECT count(*)::int AS count FROM courses c WHERE ${whereSql}`, params.slice(0, -2));
      total = counted?.count ?? 0; // an aggregate without GROUP BY always answers one row
    }
    const courses = rows.map((r) => rowToCourseListItem(r, this.urls));
    return pageOf('courses', courses, total, query);
  }
}
