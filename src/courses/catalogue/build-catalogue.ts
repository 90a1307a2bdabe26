import { parse } from 'csv-parse/sync';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Level } from '../course-level';
import { categoryFromSkills } from './catalogue-categories';
import {
  cleanCourseraInstructor,
  cleanDescription,
  collapse,
  firstEdxInstructor,
  isBlank,
  parseCount,
  parsePythonList,
  stableHash,
  truncate,
} from './catalogue-text';
import { CatalogueTopic, buildTopics, genericTitles, skillTitles, syllabusTitles } from './catalogue-topics';

export interface CatalogueCourse {
  /** "edx:<slug>" or "coursera:<learn|specializations|…>/<slug>"; unique across the catalogue. */
  sourceKey: string;
  title: string;
  description: string;
  category: string;
  level: Level;
  durationMinutes: number;
  rating: number;
  enrolled: number;
  creditCost: number;
  organisation: string | null;
  tutor: { name: string; bio: string; organisation: string | null };
  topics: CatalogueTopic[];
}

export interface CatalogueFiles {
  edx?: string;
  coursera?: string;
}

type Row = Record<string, string>;

export const EDX_FILE = 'edx_courses.csv';
export const COURSERA_FILE = 'coursera_courses.csv';

/** Reads whichever of the two CSV files exist in `dir`. */
/** Reads a folder holding the two CSVs, or one CSV file of either kind (told apart by its header). */
export function readCatalogueFiles(path: string): CatalogueFiles {
  if (!existsSync(path)) throw new Error(`${path} does not exist`);
  if (statSync(path).isFile()) {
    const text = readFileSync(path, 'utf8');
    const header = text.slice(0, 4000).split(/\r?\n/, 1)[0];
    if (/\bcourse_name\b/.test(header)) return { coursera: text };
    if (/\btitle\b/.test(header) && /\bsubject\b/.test(header)) return { edx: text };
    throw new Error(`${path} is neither an edX nor a Coursera catalogue CSV (see data/README.md)`);
  }
  const read = (name: string) => (existsSync(join(path, name)) ? readFileSync(join(path, name), 'utf8') : undefined);
  return { edx: read(EDX_FILE), coursera: read(COURSERA_FILE) };
}

/** Turns the two scraped CSV files into catalogue courses: pure and deterministic (same text in, same courses out). */
export function buildCatalogue(files: CatalogueFiles): CatalogueCourse[] {
  const courses = [...fromSource(files.edx, 'title', edxCourse), ...fromSource(files.coursera, 'course_name', courseraCourse)];
  const seen = new Set<string>();
  return courses.filter((c) => {
    if (seen.has(c.sourceKey)) return false;
    seen.add(c.sourceKey);
    return true;
  });
}

/** Parses one file and keeps the first row of each repeated title. */
function fromSource(csv: string | undefined, titleColumn: string, toCourse: (row: Row) => CatalogueCourse | null): CatalogueCourse[] {
  if (!csv) return [];
  const rows: Row[] = parse(csv, { columns: true, bom: true, skip_empty_lines: true, relax_column_count: true });
  const titles = new Set<string>();
  const out: CatalogueCourse[] = [];
  for (const row of rows) {
    const title = collapse(row[titleColumn]).toLowerCase();
    if (!title || titles.has(title)) continue;
    titles.add(title);
    const course = toCourse(row);
    if (course) out.push(course);
  }
  return out;
}

function edxCourse(row: Row): CatalogueCourse | null {
  const slug = urlPath(row.course_url).split('/').pop();
  if (!slug) return null;
  const title = truncate(collapse(row.title), 300);
  const organisation = orgOf(row.institution);
  const durationMinutes = edxMinutes(row.course_effort, row.course_length);
  const titles = syllabusTitles(row.course_syllabus);
  return {
    sourceKey: `edx:${slug}`,
    title,
    description: cleanDescription(isBlank(row.course_description) ? row.summary : row.course_description),
    category: truncate(collapse(row.subject), 100) || 'Business & Management',
    level: levelOf(row.Level),
    durationMinutes,
    rating: derivedRating(title),
    enrolled: parseCount(row.n_enrolled),
    creditCost: edxCredits(row.price),
    organisation,
    tutor: tutorOf(firstEdxInstructor(row.instructors), organisation),
    topics: buildTopics(titles.length ? titles : genericTitles(durationMinutes), durationMinutes),
  };
}

function courseraCourse(row: Row): CatalogueCourse | null {
  const path = urlPath(row.course_url);
  if (!path) return null;
  const title = truncate(collapse(row.course_name), 300);
  const skills = parsePythonList(row.skills);
  const organisation = orgOf(row.course_provided_by);
  const isCourse = row.learning_product_type?.trim().toUpperCase() === 'COURSE';
  const durationMinutes = courseraMinutes(row.estimated_time_to_complete, isCourse);
  const rating = Number(row.course_rating);
  const instructor = parsePythonList(row.instructors).map(cleanCourseraInstructor).find(Boolean) ?? null;
  const titles = skillTitles(skills);
  return {
    sourceKey: `coursera:${path}`,
    title,
    description: cleanDescription(row.description),
    category: categoryFromSkills(skills, title),
    level: levelOf(row.course_difficulty),
    durationMinutes,
    rating: !isBlank(row.course_rating) && rating > 0 ? Math.min(5, Math.round(rating * 10) / 10) : derivedRating(title),
    enrolled: parseCount(row.enrolled_student_count),
    creditCost: courseraCredits(durationMinutes, isCourse),
    organisation,
    tutor: tutorOf(instructor, organisation),
    topics: buildTopics(titles.length ? titles : genericTitles(durationMinutes), durationMinutes),
  };
}

/** "https://www.coursera.org/learn/python/" → "learn/python". */
function urlPath(url: string | undefined): string {
  return (url ?? '')
    .trim()
    .replace(/^https?:\/\/[^/]+\//, '')
    .replace(/[?#].*$/, '')
    .replace(/\/+$/, '')
    .slice(0, 280);
}

function orgOf(value: string | undefined): string | null {
  return isBlank(value) ? null : truncate(collapse(value), 200);
}

const LEVELS: Record<string, Level> = { introductory: 'Beginner', beginner: 'Beginner', intermediate: 'Intermediate', advanced: 'Advanced' };

/** Introductory → Beginner; Mixed, missing or unknown → All Levels. */
export function levelOf(value: string | undefined): Level {
  return LEVELS[collapse(value).toLowerCase()] ?? 'All Levels';
}

function tutorOf(name: string | null, organisation: string | null): CatalogueCourse['tutor'] {
  const fallback = organisation ? `${organisation} Faculty` : 'Course Faculty';
  return {
    name: truncate(name || fallback, 200),
    bio: organisation ? `Instructor at ${organisation}.` : 'Course instructor.',
    organisation,
  };
}

/** edX lists no rating: 4.0–4.8 from a hash of the title, so it is stable across loads. */
export function derivedRating(title: string): number {
  return 4 + (stableHash(title) % 9) / 10;
}

const EDX_DEFAULT_HOURS_PER_WEEK = 4;
const EDX_DEFAULT_WEEKS = 6;

/** "2–3 hours per week" × "2 Weeks" → 5 hours (the midpoint of the weekly range, times the weeks). */
export function edxMinutes(effort: string | undefined, length: string | undefined): number {
  const range = /(\d+(?:\.\d+)?)\s*(?:[–—-]\s*(\d+(?:\.\d+)?))?\s*hours?/i.exec(effort ?? '');
  const perWeek = range ? (Number(range[1]) + Number(range[2] ?? range[1])) / 2 : EDX_DEFAULT_HOURS_PER_WEEK;
  const weeks = Number(/(\d+)\s*weeks?/i.exec(length ?? '')?.[1] ?? EDX_DEFAULT_WEEKS) || EDX_DEFAULT_WEEKS;
  return Math.max(1, Math.round(perWeek * weeks * 60));
}

// Coursera quotes programmes in months at a suggested pace of a few hours a week: we count 20 hours a month.
const HOURS_PER_MONTH = 20;
const HOURS_PER_WEEK = 5;

/** "16 hours", "Approx. 54 hours to complete", "4 months"; missing → 15 hours for a course, 4 months for a programme. */
export function courseraMinutes(value: string | undefined, isCourse = true): number {
  const text = value ?? '';
  const amount = (unit: string) => Number(new RegExp(`(\\d+(?:\\.\\d+)?)\\s*${unit}`, 'i').exec(text)?.[1] ?? NaN);
  const hours = [amount('hours?'), amount('months?') * HOURS_PER_MONTH, amount('weeks?') * HOURS_PER_WEEK, amount('minutes?') / 60].find(
    (h) => Number.isFinite(h) && h > 0,
  );
  return Math.max(1, Math.round((hours ?? (isCourse ? 15 : 4 * HOURS_PER_MONTH)) * 60));
}

const roundTo5 = (n: number) => Math.round(n / 5) * 5;
const clampCredits = (n: number) => Math.min(100, Math.max(5, roundTo5(n)));

/** edX: free when the verified certificate costs under $30; otherwise a third of its USD price, in steps of 5 (5–100). */
export function edxCredits(price: string | undefined): number {
  const usd = Number(/\$\s*(\d+(?:\.\d+)?)/.exec(price ?? '')?.[1] ?? NaN);
  if (!Number.isFinite(usd) || usd < 30) return 0;
  return clampCredits(usd / 3);
}

/** Coursera lists no price: single courses of 8 hours or less are free; others cost 1 credit an hour (programmes half that), 5–100. */
export function courseraCredits(durationMinutes: number, isCourse: boolean): number {
  const hours = durationMinutes / 60;
  if (isCourse && hours <= 8) return 0;
  return clampCredits(isCourse ? hours : hours / 2);
}
