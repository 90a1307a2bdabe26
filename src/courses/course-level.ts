/** Course levels: shared with search (its filters and DTO) without exposing the course entity. */
export const LEVELS = ['Beginner', 'Intermediate', 'Advanced', 'All Levels'] as const;
export type Level = (typeof LEVELS)[number];
