import type { Course, Tutor } from './courses.repository';

/** Builds public URLs of generated images and preview pages from PUBLIC_BASE_URL. */
export class CourseUrls {
  constructor(private readonly base: string) {}

  thumbnail(course: Pick<Course, 'id' | 'thumbnailUrl'>): string {
    return course.thumbnailUrl ?? `${this.base}/static/thumbnails/${course.id}.svg`;
  }

  avatar(tutor: Pick<Tutor, 'id' | 'avatarUrl'>): string {
    return tutor.avatarUrl ?? `${this.base}/static/avatars/${tutor.id}.svg`;
  }

  preview(course: Pick<Course, 'id' | 'previewVideoUrl'>): string {
    return course.previewVideoUrl ?? `${this.base}/preview/courses/${course.id}`;
  }
}
