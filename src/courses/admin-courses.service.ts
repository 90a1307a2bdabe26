import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DomainError, FieldError, validationFailed } from '../common/errors';
import { TransactionRunner } from '../events/transaction-runner';
import { CatalogueCache } from './catalogue-cache';
import { toCourseDetail } from './course.mapper';
import { CoursesRepository, Tutor } from './courses.repository';
import { CoursesService } from './courses.service';
import { AdminCourseDto, CreateCourseDto, NewTutorDto, TopicInputDto, UpdateCourseDto } from './dto/admin-course.dto';
import { formatCourseDuration } from './durations';

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
    private readonly repo: CoursesRepository,
    private readonly cache: CatalogueCache,
    private readonly courses: CoursesService,
  ) {}

  async create(dto: CreateCourseDto): Promise<AdminCourseDto> {
    assertOneTutor(dto, true);
    const id = await this.transactions.run(async ({ em }) => {
      const tutor = dto.tutor ? await this.newTutor(em, dto.tutor) : await this.existingTutor(em, dto.tutor_id!);
      const course = await this.repo.insertCourse(em, {
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
      });
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
      const course = await this.repo.lockCourse(em, id);
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
      await this.repo.updateCourse(em, course);
    });
    await this.cache.invalidate();
    return this.get(id);
  }

  async setPublished(id: number, published: boolean): Promise<AdminCourseDto> {
    if (!(await this.repo.setPublished(id, published, new Date()))) throw new DomainError('course_not_found');
    await this.cache.invalidate();
    return this.get(id);
  }

  /** Any course, published or not. */
  async get(id: number): Promise<AdminCourseDto> {
    const course = await this.repo.findCourse(id, false);
    if (!course) throw new DomainError('course_not_found');
    const [tutor, topics, enrolled] = await Promise.all([this.repo.findTutor(course.tutorId), this.repo.topicsOf(id), this.courses.enrolled(id)]);
    return {
      ...toCourseDetail({ ...course, enrolled }, tutor!, topics, this.courses.urls),
      published: course.published,
      duration: formatCourseDuration(course.durationMinutes),
      organisation: course.organisation,
      updated_at: course.updatedAt.toISOString(),
    };
  }

  private async existingTutor(em: EntityManager, id: number): Promise<Tutor> {
    const tutor = await this.repo.findTutor(id, em);
    if (!tutor) throw validationFailed([{ field: 'tutor_id', message: 'tutor_id does not name a tutor' }]);
    return tutor;
  }

  private async newTutor(em: EntityManager, dto: NewTutorDto): Promise<Tutor> {
    const organisation = dto.organisation ?? null;
    const existing = await this.repo.tutorIdByName(em, dto.name, organisation);
    if (existing !== null) {
      throw validationFailed([{ field: 'tutor', message: `a tutor with this name and organisation exists (id ${existing}); pass tutor_id instead` }]);
    }
    return this.repo.insertTutor(em, { name: dto.name, bio: dto.bio, avatarUrl: dto.avatar_url ?? null, organisation });
  }

  /** Replaces the course's topics; rows are updated in place by position, so topic ids stay stable where a position remains. */
  private async replaceTopics(em: EntityManager, courseId: number, topics: TopicInputDto[]): Promise<void> {
    await this.repo.trimTopics(em, [courseId], [topics.length]);
    await this.repo.upsertTopics(
      em,
      topics.map((t, i) => ({
        courseId,
        position: i + 1,
        title: t.title,
        durationMinutes: t.duration_minutes,
        hasQuiz: t.has_quiz ?? false,
        isPreview: t.is_preview ?? false,
      })),
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
