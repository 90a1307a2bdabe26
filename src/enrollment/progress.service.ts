import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { DomainError } from '../common/errors';
import type { Scope } from '../common/scope';
import { CoursesService } from '../courses/courses.service';
import { InTransactionHooks } from '../events/hooks';
import { Tx, TransactionRunner } from '../events/transaction-runner';
import { UsersService } from '../users/users.service';
import { ProgressDto, ProgressResultDto } from './dto/enrollment.dto';
import { isCourseComplete, ProgressCounts, progressPercent } from './enrollment-progress';
import { type Enrollment, EnrollmentsRepository } from './enrollments.repository';
import { EnrollmentsService } from './enrollments.service';
import { toProgressResult } from './enrollment.mapper';

type Change = 'none' | 'topic_completed' | 'quiz_passed';

@Injectable()
export class ProgressService implements OnApplicationBootstrap {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly repo: EnrollmentsRepository,
    private readonly enrollments: EnrollmentsService,
    private readonly courses: CoursesService,
    private readonly users: UsersService,
    private readonly hooks: InTransactionHooks,
  ) {}

  /** Completing a course issues its certificate in the same transaction: the application must have a handler for it. */
  onApplicationBootstrap(): void {
    this.hooks.requireHandler('enrollment.completed', ProgressService.name);
  }

  /**
   * Marks a topic complete (and its quiz passed) under a row lock on the enrolment, so parallel calls
   * serialise. A repeat changes nothing and emits nothing; completing the course raises enrollment.completed
   * in the same transaction (the certificates module issues the certificate there).
   */
  record(scope: Scope, enrollmentId: number, dto: ProgressDto): Promise<ProgressResultDto> {
    return this.tx.run(async (tx) => {
      const enrollment = await this.enrollments.find(tx.em, scope, enrollmentId, true);
      const topic = (await this.courses.topics(tx.em, enrollment.courseId)).find((t) => t.id === dto.topic_id);
      if (!topic) throw new DomainError('topic_not_found');

      const change = await this.apply(tx, enrollment.id, topic.id, topic.hasQuiz && dto.quiz_passed === true);
      const counts = (await this.repo.countProgress([enrollment.id], tx.em)).get(enrollment.id)!;
      if (change === 'topic_completed') await this.emitProgress(tx, scope, enrollment, topic, counts);
      if (change !== 'none' && enrollment.status === 'active' && isCourseComplete(counts)) await this.complete(tx, enrollment);
      return toProgressResult(enrollment, counts);
    });
  }

  private async apply(tx: Tx, enrollmentId: number, topicId: number, quizPassed: boolean): Promise<Change> {
    if (await this.repo.completeTopic(tx.em, enrollmentId, topicId, quizPassed)) return 'topic_completed';
    if (!quizPassed) return 'none';
    // A topic done earlier with its quiz pending: passing the quiz now is a change, but not a new topic.
    return (await this.repo.passQuiz(tx.em, enrollmentId, topicId)) ? 'quiz_passed' : 'none';
  }

  private async emitProgress(tx: Tx, scope: Scope, e: Enrollment, topic: { id: number; title: string }, counts: ProgressCounts): Promise<void> {
    const user = await this.users.snapshot(scope, e.userId, tx.em);
    await tx.record(scope, 'course.progress', {
      enrollment_id: e.id,
      user_id: e.userId,
      external_user_id: user.externalUserId,
      course_id: e.courseId,
      topic_id: topic.id,
      topic_title: topic.title,
      progress_percent: progressPercent(counts),
      completed_topics: counts.completedTopics,
      total_topics: counts.totalTopics,
    });
  }

  private async complete(tx: Tx, e: Enrollment): Promise<void> {
    const completedAt = await this.repo.markCompleted(tx.em, e.id);
    e.status = 'completed';
    e.completedAt = completedAt;
    const out = await tx.raise('enrollment.completed', { enrollmentId: e.id, userId: e.userId, courseId: e.courseId, completedAt, overrideQuiz: false });
    e.certificateId = out.certificateId;
    if (e.certificateId) await this.repo.setCertificate(tx.em, e.id, e.certificateId);
  }
}
