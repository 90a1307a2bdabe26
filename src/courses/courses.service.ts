import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { DomainError } from '../common/errors';
import { offsetOf, pageOf } from '../common/pagination';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { CatalogueCache } from './catalogue-cache';
import { Course } from './course.entity';
import { COURSE_LIST_COLUMNS, CourseUrls, rowToCourseListItem, toCourseDetail } from './course.mapper';
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

  list(query: ListCoursesQuery): Promise<CourseListDto> {
    const key = `list:${query.category?.toLowerCase() ?? ''}:${query.level ?? ''}:${query.sort}:${query.page}:${query.limit}`;
    return this.cache.getOrLoad(key, () => this.loadList(query));
  }

  get(id: number): Promise<CourseDetailDto> {
    return this.cache.getOrLoad(`detail:${id}`, async () => {
      const course = await this.dataSource.getRepository(Course).findOne({ where: { id, published: true } });
      if (!course) throw new DomainError('course_not_found');
      const [tutor, topics] = await Promise.all([
        this.dataSource.getRepository(Tutor).findOneByOrFail({ id: course.tutorId }),
        this.dataSource.getRepository(Topic).find({ where: { courseId: id }, order: { position: 'ASC' } }),
      ]);
      return toCourseDetail(course, tutor, topics, this.urls);
    });
  }

  /**
   * Facts of a published course, e.g. its cost before enrolling. The enrolment count itself is kept by the
   * database: a deferred trigger on enrollments adds one at COMMIT (migration EnrollmentCountTrigger).
   */
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
    const rows: Array<Record<string, unknown>> = await this.dataSource.query(
      `SELECT ${COURSE_LIST_COLUMNS}, count(*) OVER () AS total
         FROM courses c JOIN tutors t ON t.id = c.tutor_id
        WHERE ${whereSql}
        ORDER BY ${ORDER[query.sort]}
        LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
    let total = rows.length ? Number(rows[0].total) : 0;
    if (!rows.length && query.page > 1) {
      const [{ count }] = await this.dataSource.query(`SELECT count(*)::int AS count FROM courses c WHERE ${whereSql}`, params.slice(0, -2));
      total = count;
    }
    const courses = rows.map((r) => rowToCourseListItem(r, this.urls));
    return pageOf('courses', courses, total, query);
  }
}
