import { EnrollmentDto, ProgressResultDto } from './dto/enrollment.dto';
import { ProgressCounts, progressPercent } from './enrollment-progress';
import type { Enrollment } from './enrollments.repository';

export function toProgressResult(e: Enrollment, c: ProgressCounts): ProgressResultDto {
  return {
    enrollment_id: e.id,
    progress_percent: progressPercent(c),
    completed_topics: c.completedTopics,
    total_topics: c.totalTopics,
    quizzes_pending: c.quizzesPending,
    status: e.status,
    completed_at: e.completedAt?.toISOString() ?? null,
    certificate_id: e.certificateId,
  };
}

export function toEnrollmentView(e: Enrollment, externalUserId: string, c: ProgressCounts): EnrollmentDto {
  return {
    enrollment_id: e.id,
    user_id: e.userId,
    external_user_id: externalUserId,
    course_id: e.courseId,
    status: e.status,
    progress_percent: progressPercent(c),
    completed_topics: c.completedTopics,
    total_topics: c.totalTopics,
    quizzes_pending: c.quizzesPending,
    credits_deducted: e.creditsDeducted,
    enrolled_at: e.enrolledAt.toISOString(),
    completed_at: e.completedAt?.toISOString() ?? null,
    certificate_id: e.certificateId,
  };
}
