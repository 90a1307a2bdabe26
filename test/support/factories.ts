import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { Course, Level } from '../../src/courses/course.entity';
import { Topic } from '../../src/courses/topic.entity';
import { Tutor } from '../../src/courses/tutor.entity';
import { KeysService } from '../../src/api-keys/keys.service';
import { PartnersService } from '../../src/partners/partners.service';
import type { TestApp } from './app';
import type { HttpClient } from './http';

export function unique(prefix = 'x'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`;
}

export interface CourseSpec {
  title?: string;
  category?: string;
  level?: Level;
  creditCost?: number;
  enrolled?: number;
  rating?: number;
  durationMinutes?: number;
  published?: boolean;
  description?: string;
  organisation?: string | null;
  tutorName?: string;
  /** has_quiz per topic; default [false, true, false]. */
  topics?: boolean[];
}

export interface CreatedCourse {
  course: Course;
  tutor: Tutor;
  topics: Topic[];
}

/** Inserts a tutor, a course and its topics with unique values. */
export async function createCourse(db: DataSource, spec: CourseSpec = {}): Promise<CreatedCourse> {
  return db.transaction(async (em) => {
    const tutor = await em.save(
      em.create(Tutor, { name: spec.tutorName ?? unique('Tutor'), bio: 'Teaches things.', organisation: spec.organisation ?? null, avatarUrl: null }),
    );
    const course = await em.save(
      em.create(Course, {
        title: spec.title ?? unique('Course'),
        description: spec.description ?? 'A course used by a test.',
        category: spec.category ?? unique('Category'),
        level: spec.level ?? 'Beginner',
        durationMinutes: spec.durationMinutes ?? 180,
        rating: spec.rating ?? 4.5,
        enrolled: spec.enrolled ?? 0,
        creditCost: spec.creditCost ?? 10,
        thumbnailUrl: null,
        previewVideoUrl: null,
        tutorId: tutor.id,
        organisation: spec.organisation ?? null,
        published: spec.published ?? true,
        sourceKey: null,
      }),
    );
    const quizzes = spec.topics ?? [false, true, false];
    const topics = await em.save(
      quizzes.map((hasQuiz, i) =>
        em.create(Topic, {
          courseId: course.id,
          position: i + 1,
          title: `Topic ${i + 1} of ${course.title}`,
          durationMinutes: 45 + i * 30,
          hasQuiz,
          isPreview: i === 0,
        }),
      ),
    );
    return { course, tutor, topics };
  });
}

export interface PartnerSpec {
  plan?: 'starter' | 'growth' | 'enterprise';
  mode?: 'test' | 'live';
  name?: string;
}

export interface CreatedPartner {
  partnerId: number;
  key: string;
  keyId: string;
  mode: 'test' | 'live';
  http: HttpClient;
}

/** A partner with one key, created through the same service the CLI uses. */
export async function createPartner(t: TestApp, spec: PartnerSpec = {}): Promise<CreatedPartner> {
  const created = await t.app.get(PartnersService).create({
    name: spec.name ?? unique('Partner'),
    email: `${unique('dev')}@example.com`,
    plan: spec.plan ?? 'enterprise',
    mode: spec.mode ?? 'test',
  });
  return {
    partnerId: created.partner.id,
    key: created.api_key.key,
    keyId: created.api_key.id,
    mode: created.api_key.mode as 'test' | 'live',
    http: t.http.withKey(created.api_key.key),
  };
}

/** Another key of an existing partner (e.g. its live key). */
export async function createKey(t: TestApp, partnerId: number, mode: 'test' | 'live'): Promise<CreatedPartner> {
  const key = await t.app.get(KeysService).issue(null, partnerId, mode);
  return { partnerId, key: key.key, keyId: key.id, mode, http: t.http.withKey(key.key) };
}

export async function createAdmin(t: TestApp): Promise<CreatedPartner> {
  const key = await t.app.get(PartnersService).createAdminKey(unique('admin'), 'live');
  return { partnerId: 0, key: key.key, keyId: key.id, mode: 'live', http: t.http.withKey(key.key) };
}
