import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { DomainError, FieldError, validationFailed } from '../common/errors';
import { TransactionRunner } from '../events/transaction-runner';
import { CatalogueCache } from './catalogue-cache';
import { Course } from './course.entity';
import { toCourseDetail } from './course.mapper';
import { CoursesService } from './courses.service';
import { AdminCourseDto, CreateCourseDto, NewTutorDto, TopicInputDto, UpdateCourseDto } from './dto/admin-course.dto';
import { formatCourseDuration } from './durations';
import { Topic } from './topic.entity';
import { Tutor } from './tutor.entity';

/** Fields an update may set to null (back to the generated image / preview page). */
const NULLABLE = new Set(['thumbnail_url', 'preview_video_url']);

/**
 * Platform operators' catalogue management. Every change is one transaction; after it commits the
 * catalogue cache of every instance is cleared, so partners see (or stop seeing) the course at once.
 */
@Injectable()
export class AdminCoursesService {
  constructor(
    private readonly transactions: TransactionRunner,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cache: CatalogueCache,
    private readonly courses: CoursesService,
  ) {}

  async create(dto: CreateCourseDto): Promise<AdminCourseDto> {
    assertOneTutor(dto, true);
    const id = await this.transactions.run(async ({ em }) => {
      const tutor = dto.tutor ? await this.newTutor(em, dto.tutor) : await this.existingTutor(em, dto.tutor_id!);
      const course = await em.save(
        em.create(Course, {
          title: dto.title,
          description: dto.description ?? '',
          category: dto.category,
          level: dto.level,
          durationMinutes: totalMinutes(dto.topics),
          rating: dto.rating ?? 0,
          enrolled: 0,
          creditCost: dto.credit_cost,
          thumbnailUrl: dto.thumbnail_url ?? null,
          previewVideoUrl: dto.preview_video_url ?? null,
          tutorId: tutor.id,
          organisation: tutor.organisation,
          published: dto.published ?? false,
          sourceKey: null,
        }),
      );
      await this.replaceTopics(em, course.id, dto.topics);
      return course.id;
    });
    await this.cache.invalidate();
    return this.get(id);
  }

  async update(id: number, dto: UpdateCourseDto): Promise<AdminCourseDto> {
    const nulls: FieldError[] = Object.entries(dto)
      .filter(([field, value]) => value === null && !NULLABLE.has(field))
      .map(([field]) => ({ field, message: `${field} cannot be null` }));
    if (nulls.length) throw validationFailed(nulls);
    assertOneTutor(dto, false);
    await this.transactions.run(async ({ em }) => {
      const course = await em.findOne(Course, { where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!course) throw new DomainError('course_not_found');
      if (dto.tutor || dto.tutor_id !== undefined) {
        const tutor = dto.tutor ? await this.newTutor(em, dto.tutor) : await this.existingTutor(em, dto.tutor_id!);
        course.tutorId = tutor.id;
        course.organisation = tutor.organisation;
      }
      if (dto.title !== undefined) course.title = dto.title;
      if (dto.description !== undefined) course.description = dto.description;
      if (dto.category !== undefined) course.category = dto.category;
      if (dto.level !== undefined) course.level = dto.level;
      if (dto.credit_cost !== undefined) course.creditCost = dto.credit_cost;
      if (dto.rating !== undefined) course.rating = dto.rating;
      if (dto.thumbnail_url !== undefined) course.thumbnailUrl = dto.thumbnail_url;
      if (dto.preview_video_url !== undefined) course.previewVideoUrl = dto.preview_video_url;
      if (dto.topics) {
        await this.replaceTopics(em, id, dto.topics);
        course.durationMinutes = totalMinutes(dto.topics);
      }
      course.updatedAt = new Date();
      await em.save(course);
    });
    await this.cache.invalidate();
    return this.get(id);
  }

  async setPublished(id: number, published: boolean): Promise<AdminCourseDto> {
    const { affected } = await this.dataSource.getRepository(Course).update({ id }, { published, updatedAt: new Date() });
    if (!affected) throw new DomainError('course_not_found');
    await this.cache.invalidate();
    return this.get(id);
  }

  /** Any course, published or not. */
  async get(id: number): Promise<AdminCourseDto> {
    const course = await this.dataSource.getRepository(Course).findOneBy({ id });
    if (!course) throw new DomainError('course_not_found');
    const [tutor, topics, enrolled] = await Promise.all([
      this.dataSource.getRepository(Tutor).findOneByOrFail({ id: course.tutorId }),
      this.dataSource.getRepository(Topic).find({ where: { courseId: id }, order: { position: 'ASC' } }),
      this.courses.enrolled(id),
    ]);
    return {
      ...toCourseDetail({ ...course, enrolled }, tutor, topics, this.courses.urls),
      published: course.published,
      duration: formatCourseDuration(course.durationMinutes),
      organisation: course.organisation,
      updated_at: course.updatedAt.toISOString(),
    };
  }

  private async existingTutor(em: EntityManager, id: number): Promise<Tutor> {
    const tutor = await em.findOneBy(Tutor, { id });
    if (!tutor) throw validationFailed([{ field: 'tutor_id', message: 'tutor_id does not name a tutor' }]);
    return tutor;
  }

  private async newTutor(em: EntityManager, dto: NewTutorDto): Promise<Tutor> {
    const organisation = dto.organisation ?? null;
    const [existing]: Array<{ id: number }> = await em.query(`SELECT id FROM tutors WHERE name = $1 AND coalesce(organisation, '') = $2`, [dto.name, organisation ?? '']);
    if (existing) {
      throw validationFailed([{ field: 'tutor', message: `a tutor with this name and organisation exists (id ${existing.id}); pass tutor_id instead` }]);
    }
    return em.save(em.create(Tutor, { name: dto.name, bio: dto.bio, avatarUrl: dto.avatar_url ?? null, organisation }));
  }

  /** Replaces the course's topics; rows are updated in place by position, so topic ids stay stable where a position remains. */
  private async replaceTopics(em: EntityManager, courseId: number, topics: TopicInputDto[]): Promise<void> {
    await em.query('DELETE FROM topics WHERE course_id = $1 AND position > $2', [courseId, topics.length]);
    await em.query(
      `INSERT INTO topics (course_id, position, title, duration_minutes, has_quiz, is_preview)
       SELECT $1, t.position, t.title, t.duration_minutes, t.has_quiz, t.is_preview
         FROM unnest($2::int[], $3::varchar[], $4::int[], $5::bool[], $6::bool[]) AS t(position, title, duration_minutes, has_quiz, is_preview)
       ON CONFLICT (course_id, position) DO UPDATE
         SET title = EXCLUDED.title, duration_minutes = EXCLUDED.duration_minutes, has_quiz = EXCLUDED.has_quiz, is_preview = EXCLUDED.is_preview`,
      [
        courseId,
        topics.map((_, i) => i + 1),
        topics.map((t) => t.title),
        topics.map((t) => t.duration_minutes),
        topics.map((t) => t.has_quiz ?? false),
        topics.map((t) => t.is_preview ?? false),
      ],
    );
  }
}

function totalMinutes(topics: TopicInputDto[]): number {
  return topics.reduce((sum, t) => sum + t.duration_minutes, 0);
}

function assertOneTutor(dto: { tutor_id?: number; tutor?: NewTutorDto }, required: boolean): void {
  if (dto.tutor_id !== undefined && dto.tutor !== undefined) {
    throw validationFailed([{ field: 'tutor', message: 'give either tutor_id or tutor, not both' }]);
  }
  if (required && dto.tutor_id === undefined && dto.tutor === undefined) {
    throw validationFailed([{ field: 'tutor_id', message: 'tutor_id or tutor is required' }]);
  }
}
