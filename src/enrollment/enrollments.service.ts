import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DomainError } from '../common/errors';
import { offsetOf, PageQuery, pageOf } from '../common/pagination';
import { Scope } from '../common/scope';
import { CoursesService } from '../courses/courses.service';
import { CreditLedger } from '../credits/credit-ledger';
import { TransactionRunner, Tx } from '../events/transaction-runner';
import { UsersService } from '../users/users.service';
import { EnrollDto, EnrollmentDto, EnrollmentListDto, EnrollResultDto } from './dto/enrollment.dto';
import { EnrollmentProgressView, ProgressCounts } from './enrollment-progress';
import { type Enrollment, EnrollmentsRepository } from './enrollments.repository';
import { toEnrollmentView } from './enrollment.mapper';
import { MAX_INT_ID } from '../common/params';

export type { EnrollmentProgressView } from './enrollment-progress';

export interface EnrollOptions {
  /** Runs inside the enrolment's transaction after its writes; throwing rolls the enrolment back. */
  inTransaction?: (tx: Tx, result: EnrollResultDto) => Promise<void>;
}

const NO_PROGRESS: ProgressCounts = { totalTopics: 0, completedTopics: 0, quizzesPending: 0 };

@Injectable()
export class EnrollmentsService {
  constructor(
    private readonly repo: EnrollmentsRepository,
    private readonly tx: TransactionRunner,
    private readonly users: UsersService,
    private readonly courses: CoursesService,
    private readonly ledger: CreditLedger,
  ) {}

  /**
   * One transaction: enrolment row, ledger debit (conditional update), course.enrolled, and the course's count,
   * which a deferred trigger adds to one of the course's counter shards at COMMIT (never to the course row).
   * `options.inTransaction` writes the caller's own record of the enrolment in that same transaction (bulk jobs).
   */
  async enroll(scope: Scope, dto: EnrollDto, options: EnrollOptions = {}): Promise<EnrollResultDto> {
    const deduct = dto.deduct_credits ?? true;
    // Reads first, outside the transaction and in parallel; the learner pays the cost read here.
    const [userRead, courseRead] = await Promise.allSettled([this.users.resolve(scope, dto), this.courses.facts(dto.course_id)]);
    if (userRead.status === 'rejected') throw userRead.reason; // the learner's error wins, whatever the course
    if (courseRead.status === 'rejected') throw courseRead.reason;
    const [user, course] = [userRead.value, courseRead.value];
    if (!course) throw new DomainError('course_not_found');
    const cost = deduct ? course.creditCost : 0;
    const result = await this.tx.run(async (tx): Promise<EnrollResultDto> => {
      const inserted = await this.repo.insertOnce(tx.em, scope, user.id, course.id, cost);
      if (!inserted) {
        const existing = await this.repo.findByUserAndCourse(tx.em, scope, user.id, course.id);
        throw new DomainError('already_enrolled', { enrollment_id: existing?.id });
      }
      const { id: enrollmentId, enrolled_at: enrolledAt } = inserted;

      const remaining =
        cost > 0 ? await this.ledger.debitForEnrollment(tx.em, scope, user.id, cost, enrollmentId) : await this.ledger.balanceOf(tx.em, scope, user.id);
      await tx.record(
        scope,
        'course.enrolled',
        {
          enrollment_id: enrollmentId,
          user_id: user.id,
          external_user_id: user.externalUserId,
          course_id: course.id,
          course_title: course.title,
          credits_deducted: cost,
          enrolled_at: enrolledAt.toISOString(),
        },
        enrolledAt,
      );
      const result: EnrollResultDto = {
        enrollment_id: enrollmentId,
        user_id: user.id,
        external_user_id: user.externalUserId,
        course_id: course.id,
        status: 'active',
        progress_percent: 0,
        enrolled_at: enrolledAt.toISOString(),
        credits_deducted: cost,
        credits_remaining: remaining,
      };
      await options.inTransaction?.(tx, result);
      return result;
    });
    this.courses.enrollmentCounted();
    return result;
  }

  async get(scope: Scope, id: number): Promise<EnrollmentDto> {
    const enrollment = await this.find(undefined, scope, id);
    const user = await this.users.snapshot(scope, enrollment.userId);
    const counts = await this.repo.countProgress([enrollment.id]);
    return toEnrollmentView(enrollment, user.externalUserId, counts.get(enrollment.id) ?? NO_PROGRESS);
  }

  async listForUser(scope: Scope, userId: number, query: PageQuery): Promise<EnrollmentListDto> {
    const user = await this.users.snapshot(scope, userId);
    const [rows, total] = await this.repo.pageForUser(scope, user.id, offsetOf(query), query.limit);
    const counts = await this.repo.countProgress(rows.map((e) => e.id));
    return pageOf(
      'enrollments',
      rows.map((e) => toEnrollmentView(e, user.externalUserId, counts.get(e.id) ?? NO_PROGRESS)),
      total,
      query,
    );
  }

  /** For the certificates module: a user's enrolment in a course with its progress, or null when there is none. */
  async progressFor(em: EntityManager, scope: Scope, userId: number, courseId: number): Promise<EnrollmentProgressView | null> {
    const enrollment = await this.repo.findByUserAndCourse(em, scope, userId, courseId);
    if (!enrollment) return null;
    const counts = (await this.repo.countProgress([enrollment.id], em)).get(enrollment.id) ?? NO_PROGRESS;
    return {
      enrollmentId: enrollment.id,
      userId: enrollment.userId,
      courseId: enrollment.courseId,
      status: enrollment.status,
      completedTopics: counts.completedTopics,
      totalTopics: counts.totalTopics,
      quizzesPending: counts.quizzesPending,
      completedAt: enrollment.completedAt,
    };
  }

  /** The caller's enrolment, optionally locked (FOR UPDATE) for a progress change; 404 for anyone else's. */
  async find(em: EntityManager | undefined, scope: Scope, id: number, lock = false): Promise<Enrollment> {
    const enrollment = id >= 1 && id <= MAX_INT_ID ? await this.repo.find(scope, id, { em, lock }) : null;
    if (!enrollment) throw new DomainError('enrollment_not_found');
    return enrollment;
  }
}
