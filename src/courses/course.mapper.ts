import type { Course, CourseListRow, Topic, Tutor } from './courses.repository';
import { CourseDetailDto, CourseListItemDto } from './dto/course.dto';
import { formatCourseDuration, formatTopicDuration } from './durations';
import { CourseUrls } from './course-urls';

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

/** A course list row (CoursesRepository), as a course list item. */
export function rowToCourseListItem(r: CourseListRow, urls: CourseUrls): CourseListItemDto {
  return toCourseListItem(
    {
      id: r.id,
      title: r.title,
      category: r.category,
      level: r.level,
      durationMinutes: r.duration_minutes,
      rating: Number(r.rating),
      enrolled: r.enrolled,
      creditCost: r.credit_cost,
      thumbnailUrl: r.thumbnail_url,
    } as Course,
    { id: r.tutor_id, name: r.tutor_name, avatarUrl: r.tutor_avatar_url } as Tutor,
    urls,
  );
}
