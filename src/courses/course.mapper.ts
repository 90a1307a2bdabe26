import { Course } from './course.entity';
import { CourseDetailDto, CourseListItemDto } from './dto/course.dto';
import { formatCourseDuration, formatTopicDuration } from './durations';
import { Topic } from './topic.entity';
import { Tutor } from './tutor.entity';

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

export function toCourseListItem(course: Course, tutor: Tutor, urls: CourseUrls): CourseListItemDto {
  return {
    id: course.id,
    title: course.title,
    category: course.category,
    level: course.level,
    duration: formatCourseDuration(course.durationMinutes),
    rating: Number(course.rating),
    enrolled: course.enrolled,
    credit_cost: course.creditCost,
    thumbnail_url: urls.thumbnail(course),
    tutor: { name: tutor.name, avatar: urls.avatar(tutor) },
  };
}

export function toCourseDetail(course: Course, tutor: Tutor, topics: Topic[], urls: CourseUrls): CourseDetailDto {
  const ordered = [...topics].sort((a, b) => a.position - b.position);
  return {
    id: course.id,
    title: course.title,
    description: course.description,
    category: course.category,
    level: course.level,
    rating: Number(course.rating),
    thumbnail_url: urls.thumbnail(course),
    topics: ordered.map((t) => ({ id: t.id, title: t.title, duration: formatTopicDuration(t.durationMinutes), has_quiz: t.hasQuiz })),
    tutor: { id: tutor.id, name: tutor.name, bio: tutor.bio },
    credit_cost: course.creditCost,
    enrolled: course.enrolled,
    preview: { video_url: urls.preview(course), topic_ids: ordered.filter((t) => t.isPreview).map((t) => t.id) },
  };
}
