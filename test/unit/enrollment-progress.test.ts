import { isCourseComplete, progressPercent } from '../../src/enrollment/enrollment-progress';

describe('enrolment progress', () => {
  it('rounds 100 × completed / total', () => {
    expect(progressPercent({ totalTopics: 3, completedTopics: 1, quizzesPending: 0 })).toBe(33);
    expect(progressPercent({ totalTopics: 3, completedTopics: 2, quizzesPending: 0 })).toBe(67);
    expect(progressPercent({ totalTopics: 8, completedTopics: 1, quizzesPending: 0 })).toBe(13);
    expect(progressPercent({ totalTopics: 0, completedTopics: 0, quizzesPending: 0 })).toBe(0);
  });

  it('is complete only with every topic done and no quiz pending', () => {
    expect(isCourseComplete({ totalTopics: 2, completedTopics: 2, quizzesPending: 0 })).toBe(true);
    expect(isCourseComplete({ totalTopics: 2, completedTopics: 2, quizzesPending: 1 })).toBe(false);
    expect(isCourseComplete({ totalTopics: 2, completedTopics: 1, quizzesPending: 0 })).toBe(false);
    expect(isCourseComplete({ totalTopics: 0, completedTopics: 0, quizzesPending: 0 })).toBe(false);
  });
});
