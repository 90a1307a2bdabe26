import { createHash } from 'node:crypto';
import type { Queryable } from '../../common/database';
import { TimeSlices } from '../../common/time-slices';
import { courseWordsPage, CourseWords } from '../search.store';
import { ENCODER, EncodedText } from '../ranking-weights';

/** The texts of one course that the sentence encoder reads, with each text's md5 (its key in the vector store). */
export interface CourseTexts {
  id: number;
  texts: string[];
  hashes: string[];
  /** Each text's weight in the course's one vector (ENCODER.weights; a text two kinds share, their sum). */
  weights: number[];
}

// Courses read per statement: a page's rows (descriptions included) are parsed in one turn of the event loop, ~10 ms
// at 500 on a loaded machine.
const PAGE = 500;
// Courses whose texts are cut and hashed between two looks at the clock (~40 µs each).
const TEXTS_CHUNK = 64;

/**
 * The text of each kind, ≤ ENCODER.maxChars characters (the encoder's cost grows with the text, and a course's opening
 * says what it is about): "title. first sentences of the description", the title alone, "title. topic titles", or
 * "title. the description's next sentences after the lead" (empty when the lead holds all of it).
 */
export function courseText(kind: EncodedText, c: Pick<CourseWords, 'title' | 'description' | 'topics'>): string {
  const max = ENCODER.maxChars;
  const title = c.title.trim();
  if (kind === 'title') return title.slice(0, max);
  if (kind === 'more') {
    const lead = courseText('lead', c);
    const flat = `${title}. ${c.description}`.replace(/\s+/g, ' ').trim();
    const rest = flat.length > lead.length ? flat.slice(lead.length).trim() : '';
    return rest ? clip(`${title}. ${rest}`, max) : '';
  }
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

/** The description's sentences within ENCODER.maxChars, each a text (a fragment too short to say much joins the next). */
export function sentenceTexts(c: Pick<CourseWords, 'description'>): string[] {
  const lead = clip(c.description, ENCODER.maxChars);
  const out: string[] = [];
  let carry = '';
  for (const piece of lead.split(/(?<=[.!?])\s+/)) {
    carry = carry ? `${carry} ${piece}` : piece;
    if (carry.length < 40) continue;
    out.push(carry);
    carry = '';
  }
  if (carry && out.length) out[out.length - 1] += ` ${carry}`;
  else if (carry) out.push(carry);
  return out;
}

export function textsOf(c: CourseWords): CourseTexts {
  const weights = new Map<string, number>();
  for (const kind of ENCODER.texts) {
    const list = kind === 'sentences' ? sentenceTexts(c) : [courseText(kind, c)];
    for (const text of list) if (text) weights.set(text, (weights.get(text) ?? 0) + (ENCODER.weights[kind] ?? 1) / list.length);
  }
  const texts = [...weights.keys()];
  return { id: c.id, texts, hashes: texts.map(textHash), weights: [...weights.values()] };
}

/** Every course's encoder texts, page by page (published or not: publishing a course then costs no encoding). */
export async function* allCourseTexts(db: Queryable, slices = new TimeSlices()): AsyncGenerator<CourseTexts[]> {
  // Descriptions are read only as far as any text can use them.
  const descriptionChars = (ENCODER.texts.includes('more') ? 2 : 1) * ENCODER.maxChars + 200;
  for (let after = 0; ;) {
    const page = await courseWordsPage(db, after, PAGE, descriptionChars);
    // Cutting and hashing a page's texts takes ~20 ms at 500 courses: in slices, so that a reload of the sentence
    // vectors (every course's texts read again after a catalogue edit) lets other requests in between.
    const texts: CourseTexts[] = [];
    for (let i = 0; i < page.length; i++) {
      texts.push(textsOf(page[i]));
      if (i % TEXTS_CHUNK === TEXTS_CHUNK - 1) await slices.pause();
    }
    if (texts.length) yield texts;
    if (page.length < PAGE) return;
    after = page[page.length - 1].id;
  }
}
