import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Queryable } from '../common/database';
import { DomainError } from '../common/errors';
import { offsetOf, pageOf } from '../common/pagination';
import { SerializedBody } from '../common/serialized-body';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { CatalogueCache } from './catalogue-cache';
import { rowToCourseListItem, toCourseDetail } from './course.mapper';
import { CourseUrls } from './course-urls';
import { CoursesRepository, Topic } from './courses.repository';
import { CourseDetailDto, CourseListDto, CourseListItemDto } from './dto/course.dto';
import { CourseSort, ListCoursesQuery } from './dto/list-courses.query';

/** A topic as progress tracking sees it. */
export type CourseTopic = Pick<Topic, 'id' | 'position' | 'title' | 'hasQuiz'>;

const ORDER: Record<CourseSort, string> = {
  popular: 'c.enrolled DESC, c.id ASC',
  rating: 'c.rating DESC, c.enrolled DESC, c.id ASC',
  newest: 'c.created_at DESC, c.id DESC',
  title: 'lower(c.title) ASC, c.id ASC',
};

/** What another module may learn about a course it is about to use (enrolment). */
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
    private readonly repo: CoursesRepository,
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
      const course = await this.repo.findCourse(id, true);
      if (!course) throw new DomainError('course_not_found');
      const [tutor, topics, enrolled] = await Promise.all([this.repo.findTutor(course.tutorId), this.repo.topicsOf(id), this.enrolled(id)]);
      return new SerializedBody(toCourseDetail({ ...course, enrolled }, tutor!, topics, this.urls));
    });
  }

  /**
   * The exact enrolment count: `courses.enrolled` (folded every second by EnrollmentCountFolder) plus the counter
   * shards that enrolments add to at COMMIT (migration EnrollmentCountShards). Every response showing `enrolled`
   * reads this, never the column alone.
   */
  enrolled(courseId: number): Promise<number> {
    return this.repo.enrolled(courseId);
  }

  /** Folds the counter shards into `courses.enrolled` (one statement); returns how many courses changed. */
  foldEnrollmentCounts(): Promise<number> {
    return this.repo.foldEnrollmentCounts();
  }

  /** Facts of a published course, e.g. its cost before enrolling. */
  async facts(courseId: number, db?: Queryable): Promise<CourseFacts | null> {
    const row = await this.repo.facts(courseId, db);
    return row ? { id: row.id, title: row.title, creditCost: row.credit_cost, totalTopics: row.total_topics } : null;
  }

  /**
   * Titles of courses by id, published or not (a course unpublished after enrolment still certifies); read in
   * the caller's transaction when given one.
   */
  titles(ids: number[], db?: Queryable): Promise<Map<number, string>> {
    return this.repo.titles(ids, db);
  }

  /** Topics of a course in order, for progress tracking. */
  topics(em: EntityManager, courseId: number): Promise<CourseTopic[]> {
    return this.repo.topicsOf(courseId, em);
  }

  /**
   * Published courses with these ids as catalogue list items (those that exist), by id. Search reads its results
   * through here, on its own connection when it passes one (`db`: a search's time-bounded transaction).
   */
  async publishedListItems(ids: number[], db?: Queryable): Promise<Map<number, CourseListItemDto>> {
    const rows = await this.repo.publishedListRows(ids, db);
    return new Map(rows.map((r) => [r.id, rowToCourseListItem(r, this.urls)]));
  }

  private async loadList(query: ListCoursesQuery): Promise<CourseListDto> {
    const filter = { category: query.category, level: query.level };
    const rows = await this.repo.listPage(filter, ORDER[query.sort], query.limit, offsetOf(query));
    const total = rows.length ? Number(rows[0].total) : query.page > 1 ? await this.repo.listCount(filter) : 0;
    const courses = rows.map((r) => rowToCourseListItem(r, this.urls));
    return pageOf('courses', courses, total, query);
  }
}
