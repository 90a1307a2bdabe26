import { Queryable, sql } from '../common/database';
import { COURSE_LIST_COLUMNS, CourseListRow, rowToCourseListItem } from './course.mapper';
import { CourseUrls } from './course-urls';
import { CourseListItemDto } from './dto/course.dto';

/**
 * Published courses with these ids as catalogue list items (those that exist), by id. The courses feature owns the
 * statement (courses joined to tutors, one round trip); the caller chooses the connection, so a search keeps running
 * it on its own pool under its statement timeout.
 */
export async function publishedListItems(db: Queryable, ids: number[], urls: CourseUrls): Promise<Map<number, CourseListItemDto>> {
  if (!ids.length) return new Map();
  const rows = await sql<CourseListRow>(
    db,
    `SELECT ${COURSE_LIST_COLUMNS}
       FROM courses c JOIN tutors t ON t.id = c.tutor_id
      WHERE c.id = ANY($1) AND c.published`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id, rowToCourseListItem(r, urls)]));
}

/** A course's words for a search index: its topic titles in order, joined with " . ", and the description's start. */
export interface CourseWords {
  id: number; // int
  title: string; // varchar
  category: string; // varchar
  topics: string; // text, '' for a course without topics
  description: string; // text, at most `descriptionChars` characters
}

/** One page of every course's words (published or not), by id after `afterId`: the search indexes read the catalogue this way. */
export function courseWordsPage(db: Queryable, afterId: number, limit: number, descriptionChars: number): Promise<CourseWords[]> {
  return sql<CourseWords>(
    db,
    `SELECT c.id, c.title, c.category,
            coalesce((SELECT string_agg(tp.title, ' . ' ORDER BY tp.position) FROM topics tp WHERE tp.course_id = c.id), '') AS topics,
            left(c.description, $3::int) AS description
       FROM courses c WHERE c.id > $1 ORDER BY c.id LIMIT $2`,
    [afterId, limit, descriptionChars],
  );
}
