import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { affected, prepared, Queryable, returning, sql, sqlOne } from '../common/database';
import { inScope, Mode, Scope, scopeParams } from '../common/scope';
import { ProgressCounts } from './enrollment-progress';
import type { EnrollmentStatus } from './enrollment.entity';

/** A user's place in a course. */
export interface Enrollment {
  id: number;
  partnerId: number;
  mode: Mode;
  userId: number;
  courseId: number;
  status: EnrollmentStatus;
  creditsDeducted: number;
  enrolledAt: Date;
  completedAt: Date | null;
  certificateId: string | null;
}

/** An enrollments row as the statements below select it. */
interface EnrollmentRow {
  id: number;
  partner_id: number;
  mode: Mode;
  user_id: number;
  course_id: number;
  status: EnrollmentStatus;
  credits_deducted: number;
  enrolled_at: Date;
  completed_at: Date | null;
  certificate_id: string | null;
}

const COLUMNS = 'id, partner_id, mode, user_id, course_id, status, credits_deducted, enrolled_at, completed_at, certificate_id';

function toEnrollment(r: EnrollmentRow): Enrollment {
  return {
    id: r.id,
    partnerId: r.partner_id,
    mode: r.mode,
    userId: r.user_id,
    courseId: r.course_id,
    status: r.status,
    creditsDeducted: r.credits_deducted,
    enrolledAt: r.enrolled_at,
    completedAt: r.completed_at,
    certificateId: r.certificate_id,
  };
}

const INSERT_ONCE = prepared(
  `INSERT INTO enrollments (partner_id, mode, user_id, course_id, credits_deducted) VALUES ($1, $2, $3, $4, $5)
   ON CONFLICT (user_id, course_id) DO NOTHING RETURNING id, enrolled_at`,
);

/** Every query of the enrolment feature (enrolments and their completed topics). */
@Injectable()
export class EnrollmentsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The new enrolment's id and time, or null when the learner is already enrolled (unique user_id, course_id). */
  insertOnce(em: EntityManager, scope: Scope, userId: number, courseId: number, creditsDeducted: number): Promise<{ id: number; enrolled_at: Date } | null> {
    return sqlOne<{ id: number; enrolled_at: Date }>(em, INSERT_ONCE, scopeParams(scope, userId, courseId, creditsDeducted));
  }

  /** The caller's enrolment, optionally locked FOR UPDATE (progress changes serialise on it). */
  async find(scope: Scope, id: number, { em, lock = false }: { em?: EntityManager; lock?: boolean } = {}): Promise<Enrollment | null> {
    const row = await sqlOne<EnrollmentRow>(
      em ?? this.dataSource,
      `SELECT ${COLUMNS} FROM enrollments WHERE ${inScope()} AND id = $3 LIMIT 1${lock ? ' FOR UPDATE' : ''}`,
      scopeParams(scope, id),
    );
    return row && toEnrollment(row);
  }

  async findByUserAndCourse(db: Queryable, scope: Scope, userId: number, courseId: number): Promise<Enrollment | null> {
    const row = await sqlOne<EnrollmentRow>(
      db,
      `SELECT ${COLUMNS} FROM enrollments WHERE ${inScope()} AND user_id = $3 AND course_id = $4`,
      scopeParams(scope, userId, courseId),
    );
    return row && toEnrollment(row);
  }

  /** A learner's enrolments, newest first, with the total. */
  async pageForUser(scope: Scope, userId: number, offset: number, limit: number): Promise<[Enrollment[], number]> {
    const params = scopeParams(scope, userId);
    const where = `${inScope()} AND user_id = $3`;
    // count(*) is a bigint, which the driver answers as a string
    const [rows, counted] = await Promise.all([
      sql<EnrollmentRow>(this.dataSource, `SELECT ${COLUMNS} FROM enrollments WHERE ${where} ORDER BY id DESC LIMIT $4 OFFSET $5`, [...params, limit, offset]),
      sqlOne<{ total: string }>(this.dataSource, `SELECT count(*) AS total FROM enrollments WHERE ${where}`, params),
    ]);
    return [rows.map(toEnrollment), Number(counted!.total)];
  }

  /**
   * Progress counts of several enrolments in one query: the course's current topics against the completed ones.
   * Topics come from `course_topics`, the view the courses feature declares for this: counting in the same statement
   * as the enrolment rows is what keeps progress reads (and every progress update) to one round trip.
   */
  async countProgress(enrollmentIds: number[], db: Queryable = this.dataSource): Promise<Map<number, ProgressCounts>> {
    const out = new Map<number, ProgressCounts>();
    if (!enrollmentIds.length) return out;
    const rows = await sql<{ id: number; total: number; completed: number; pending: number }>(
      db,
      `SELECT e.id,
              count(t.id)::int AS total,
              count(et.topic_id)::int AS completed,
              (count(t.id) FILTER (WHERE t.has_quiz AND et.quiz_passed_at IS NULL))::int AS pending
         FROM enrollments e
         LEFT JOIN course_topics t ON t.course_id = e.course_id
         LEFT JOIN enrollment_topics et ON et.enrollment_id = e.id AND et.topic_id = t.id
        WHERE e.id = ANY($1::int[])
        GROUP BY e.id`,
      [enrollmentIds],
    );
    for (const r of rows) out.set(r.id, { totalTopics: r.total, completedTopics: r.completed, quizzesPending: r.pending });
    return out;
  }

  /** Marks a topic complete (its quiz passed too when `quizPassed`); false when it was complete already. */
  async completeTopic(em: EntityManager, enrollmentId: number, topicId: number, quizPassed: boolean): Promise<boolean> {
    const inserted = await sql<{ topic_id: number }>(
      em,
      `INSERT INTO enrollment_topics (enrollment_id, topic_id, quiz_passed_at) VALUES ($1, $2, CASE WHEN $3 THEN now() END)
       ON CONFLICT (enrollment_id, topic_id) DO NOTHING RETURNING topic_id`,
      [enrollmentId, topicId, quizPassed],
    );
    return inserted.length > 0;
  }

  /** Passes the quiz of a topic completed earlier; false when it was passed already. */
  async passQuiz(em: EntityManager, enrollmentId: number, topicId: number): Promise<boolean> {
    const passed = await returning<{ topic_id: number }>(
      em,
      `UPDATE enrollment_topics SET quiz_passed_at = now() WHERE enrollment_id = $1 AND topic_id = $2 AND quiz_passed_at IS NULL RETURNING topic_id`,
      [enrollmentId, topicId],
    );
    return passed.length > 0;
  }

  /** Completes the enrolment and answers its completion time. */
  async markCompleted(em: EntityManager, id: number): Promise<Date> {
    const [row] = await returning<{ completed_at: Date }>(
      em,
      `UPDATE enrollments SET status = 'completed', completed_at = now() WHERE id = $1 RETURNING completed_at`,
      [id],
    );
    return row.completed_at;
  }

  async setCertificate(em: EntityManager, id: number, certificateId: string): Promise<void> {
    await affected(em, `UPDATE enrollments SET certificate_id = $2 WHERE id = $1`, [id, certificateId]);
  }
}
