import { EntityManager } from 'typeorm';
import { sql } from '../common/database';

/** The certificates module's view of an enrolment (see EnrollmentsService.progressFor). */
export interface EnrollmentProgressView {
  enrollmentId: number;
  userId: number;
  courseId: number;
  status: 'active' | 'completed';
  completedTopics: number;
  totalTopics: number;
  quizzesPending: number;
  completedAt: Date | null;
}

/**
 * completedTopics: topics marked complete (a has_quiz topic counts even while its quiz is pending).
 * quizzesPending: has_quiz topics of the course whose quiz has not been passed yet (done or not).
 * The course is complete when completedTopics = totalTopics and quizzesPending = 0.
 */
export interface ProgressCounts {
  totalTopics: number;
  completedTopics: number;
  quizzesPending: number;
}

export function progressPercent(c: ProgressCounts): number {
  return c.totalTopics === 0 ? 0 : Math.round((100 * c.completedTopics) / c.totalTopics);
}

export function isCourseComplete(c: ProgressCounts): boolean {
  return c.totalTopics > 0 && c.completedTopics === c.totalTopics && c.quizzesPending === 0;
}

/** Progress counts of several enrolments in one query (the course's current topics against the completed ones). */
export async function countProgress(em: EntityManager, enrollmentIds: number[]): Promise<Map<number, ProgressCounts>> {
  const out = new Map<number, ProgressCounts>();
  if (!enrollmentIds.length) return out;
  // id: serial; total, completed, pending: count(…)::int
  const rows = await sql<{ id: number; total: number; completed: number; pending: number }>(
    em,
    `SELECT e.id,
            count(t.id)::int AS total,
            count(et.topic_id)::int AS completed,
            (count(t.id) FILTER (WHERE t.has_quiz AND et.quiz_passed_at IS NULL))::int AS pending
       FROM enrollments e
       LEFT JOIN topics t ON t.course_id = e.course_id
       LEFT JOIN enrollment_topics et ON et.enrollment_id = e.id AND et.topic_id = t.id
      WHERE e.id = ANY($1::int[])
      GROUP BY e.id`,
    [enrollmentIds],
  );
  for (const r of rows) out.set(r.id, { totalTopics: r.total, completedTopics: r.completed, quizzesPending: r.pending });
  return out;
}
