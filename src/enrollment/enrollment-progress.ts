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
