import { createHash } from 'node:crypto';
import type { Queryable } from '../../common/database';
import { courseWordsPage, CourseWords } from '../search.store';
import { ENCODER, EncodedText } from '../ranking-weights';

/** The texts of one course that the sentence encoder reads, with each text's md5 (its key in the vector store). */
export interface CourseTexts {
  id: number;
  texts: string[];
  hashes: string[];
}

// Courses read per statement.
const PAGE = 1000;

/**
 * The text of each kind, ≤ ENCODER.maxChars characters (the encoder's cost grows with the text, and a course's opening
 * says what it is about): "title. first sentences of the description", the title alone, or "title. topic titles".
 */
export function courseText(kind: EncodedText, c: Pick<CourseWords, 'title' | 'description' | 'topics'>): string {
  const max = ENCODER.maxChars;
  const title = c.title.trim();
  if (kind === 'title') return title.slice(0, max);
  const rest = kind === 'topics' ? c.topics.replace(/\s+\.\s+/g, '; ') : c.description;
  return clip(rest ? `${title}. ${rest}` : title, max);
}

/** The text cut at the last sentence end (or else word end) before `max` characters. */
function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const head = flat.slice(0, max);
  const sentence = Math.max(head.lastIndexOf('. '), head.lastIndexOf('! '), head.lastIndexOf('? '));
  if (sentence >= max / 2) return head.slice(0, sentence + 1);
  const word = head.lastIndexOf(' ');
  return word > 0 ? head.slice(0, word) : head;
}

export function textHash(text: string): string {
  return createHash('md5').update(text).digest('hex');
}

export function textsOf(c: CourseWords): CourseTexts {
  const texts = [...new Set(ENCODER.texts.map((kind) => courseText(kind, c)))];
  return { id: c.id, texts, hashes: texts.map(textHash) };
}

/** Every course's encoder texts, page by page (published or not: publishing a course then costs no encoding). */
export async function* allCourseTexts(db: Queryable): AsyncGenerator<CourseTexts[]> {
  // Descriptions are read only as far as any text can use them.
  const descriptionChars = ENCODER.maxChars + 200;
  for (let after = 0; ;) {
    const page = await courseWordsPage(db, after, PAGE, descriptionChars);
    if (page.length) yield page.map(textsOf);
    if (page.length < PAGE) return;
    after = page[page.length - 1].id;
  }
}
