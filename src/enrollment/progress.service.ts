import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { returning, sql } from '../common/database';
import { DomainError } from '../common/errors';
import type { Scope } from '../common/scope';
import { CoursesService } from '../courses/courses.service';
import { InTransactionHooks } from '../events/hooks';
import { Tx, TransactionRunner } from '../events/transaction-runner';
import { UsersService } from '../users/users.service';
import { ProgressDto, ProgressResultDto } from './dto/enrollment.dto';
import { countProgress, isCourseComplete, ProgressCounts, progressPercent } from './enrollment-progress';
import { Enrollment } from './enrollment.entity';
import { EnrollmentsService } from './enrollments.service';
import { toProgressResult } from './enrollment.mapper';

type Change = 'none' | 'topic_completed' | 'quiz_passed';

@Injectable()
export class ProgressService implements OnApplicationBootstrap {
  constructor(
    private readonly tx: TransactionRunner,
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
      const counts = (await countProgress(tx.em, [enrollment.id])).get(enrollment.id)!;
      if (change === 'topic_completed') await this.emitProgress(tx, scope, enrollment, topic, counts);
      if (change !== 'none' && enrollment.status === 'active' && isCourseComplete(counts)) await this.complete(tx, enrollment);
      return toProgressResult(enrollment, counts);
    });
  }

  private async apply(tx: Tx, enrollmentId: number, topicId: number, quizPassed: boolean): Promise<Change> {
    // topic_id: int
    const inserted = await sql<{ topic_id: number }>(
      tx.em,
      `INSERT INTO enrollment_topics (enrollment_id, topic_id, quiz_passed_at) VALUES ($1, $2, CASE WHEN $3 THEN now() END)
       ON CONFLICT (enrollment_id, topic_id) DO NOTHING RETURNING topic_id`,
      [enrollmentId, topicId, quizPassed],
    );
    if (inserted.length) return 'topic_completed';
    if (!quizPassed) return 'none';
    // A topic done earlier with its quiz pending: passing the quiz now is a change, but not a new topic.
    const passed = await returning<{ topic_id: number }>(
      tx.em,
      `UPDATE enrollment_topics SET quiz_passed_at = now() WHERE enrollment_id = $1 AND topic_id = $2 AND quiz_passed_at IS NULL RETURNING topic_id`,
      [enrollmentId, topicId],
    );
    return passed.length ? 'quiz_passed' : 'none';
  }

  private async emitProgress(tx: Tx, scope: Scope, e: Enrollment, topic: { id: number; title: string }, counts: ProgressCounts): Promise<void> {
    const user = await this.users.get(scope, e.userId, tx.em);
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
    // completed_at: timestamptz
    const [{ completed_at }] = await returning<{ completed_at: Date }>(
      tx.em,
      `UPDATE enrollments SET status = 'completed', completed_at = now() WHERE id = $1 RETURNING completed_at`,
      [e.id],
    );
    e.status = 'completed';
    e.completedAt = completed_at;
    const out = await tx.raise('enrollment.completed', { enrollmentId: e.id, userId: e.userId, courseId: e.courseId, completedAt: completed_at, overrideQuiz: false });
    e.certificateId = out.certificateId;
    if (e.certificateId) await tx.em.query(`UPDATE enrollments SET certificate_id = $2 WHERE id = $1`, [e.id, e.certificateId]);
  }
}
