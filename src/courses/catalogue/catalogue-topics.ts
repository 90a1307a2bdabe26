import { collapse, isBlank, truncate } from './catalogue-text';

export interface CatalogueTopic {
  title: string;
  durationMinutes: number;
  hasQuiz: boolean;
  isPreview: boolean;
}

export const MIN_TOPICS = 3;
export const MAX_TOPICS = 12;
const TITLE_MAX = 120;
const MIN_TOPIC_MINUTES = 5;
const CLOSING_TOPIC = 'Review and final assessment';
const GENERIC_TOPICS = [
  'Welcome and course overview',
  'Core concepts',
  'Key methods and tools',
  'Worked examples',
  'Applying what you have learned',
  'Case studies',
  'Going further',
];

// Unit headings as edX writes them (English and Spanish, capitalised or upper case), often glued to the
// previous text ("...SetModule 2: ...").
const UNIT_WORDS = [
  'Week',
  'Module',
  'Unit',
  'Topic',
  'Lecture',
  'Lesson',
  'Section',
  'Chapter',
  'Part',
  'Session',
  'Lab',
  'Day',
  'Semana',
  'Módulo',
  'Modulo',
  'Unidad',
  'Tema',
  'Lección',
  'Leccion',
  'Sesión',
  'Clase',
];
const UNIT = new RegExp(`(${UNIT_WORDS.flatMap((w) => [w, w.toUpperCase()]).join('|')})\\s*(\\d{1,2})(?![\\d.]\\d)`, 'g');
const MAX_GAP = 2;

/** Real module titles from an edX syllabus, or none when it has no recognisable structure. */
export function syllabusTitles(syllabus: string | undefined): string[] {
  if (isBlank(syllabus)) return [];
  const text = syllabus!.replace(/\r/g, '');
  for (const split of [byUnitHeadings, byLines, byDashHeadings, bySentences]) {
    const titles = split(text).map(topicTitle).filter(Boolean);
    if (titles.length >= 2 && titles.length <= (split === bySentences ? MAX_TOPICS : Infinity)) return titles;
  }
  return [];
}

/** "Week 1 … Week 2 …": the longest run of one kind of heading numbered upwards from 0 or 1 (a stray "see Week 4" is ignored). */
function byUnitHeadings(text: string): string[] {
  const runs = new Map<string, RegExpMatchArray[]>();
  for (const m of text.matchAll(UNIT)) {
    const kind = m[1].toLowerCase();
    const run = runs.get(kind) ?? [];
    const n = Number(m[2]);
    const last = run.length ? Number(run[run.length - 1][2]) : -1;
    if (run.length ? n > last && n <= last + MAX_GAP : n <= 1) runs.set(kind, [...run, m]);
  }
  const best = [...runs.values()].sort((a, b) => b.length - a.length)[0] ?? [];
  return best.map((m, i) => {
    const end = i + 1 < best.length ? best[i + 1].index! : text.length;
    const heading = firstPhrase(text.slice(m.index! + m[0].length, end).replace(/^[\s:.,)\-–—]+/, ''));
    return heading ? `${m[1]} ${m[2]}: ${heading}` : `${m[1]} ${m[2]}`;
  });
}

function byLines(text: string): string[] {
  return text.split('\n').map(firstPhrase).filter(Boolean);
}

/** "Welcome - We start with … Self-care for Learning - In this module …": the short phrase before each " - ". */
function byDashHeadings(text: string): string[] {
  return [...text.matchAll(/(?:^|[.!?]\s*)([A-Z][^.!?\n]{1,80}?[?]?)\s+[-–]\s+(?=[A-Z])/g)].map((m) => m[1]);
}

function bySentences(text: string): string[] {
  return collapse(text).split(/(?<=[.!?])\s*(?=[A-Z¿¡])/);
}

/** A heading ends at a line break, a sentence end, or where a lost line break glued two phrases ("credentialsIntegrate"). */
function firstPhrase(text: string): string {
  const line = text.split('\n')[0];
  const end = line.search(/[.!?](\s|$)|[a-z]{5}(?=[A-Z][a-z]{2})/);
  const cut = end < 0 ? line : line.slice(0, end + (/[a-z]/.test(line[end]) ? 5 : 0));
  return collapse(cut);
}

function topicTitle(text: string): string {
  return truncate(collapse(text).replace(/^[\s:.,\-–—]+/, ''), TITLE_MAX);
}

/** Coursera: one topic per listed skill, the first as its introduction. */
export function skillTitles(skills: string[]): string[] {
  const unique = [...new Map(skills.map((skill) => [skill.toLowerCase(), skill])).values()];
  return unique.map((skill, i) => topicTitle(i === 0 ? `Introduction to ${skill}` : skill));
}

/** Ordered generic titles for a course with nothing better; longer courses get more of them. */
export function genericTitles(durationMinutes: number): string[] {
  const count = Math.min(GENERIC_TOPICS.length + 1, Math.max(MIN_TOPICS, Math.round(durationMinutes / 60 / 4)));
  return [...GENERIC_TOPICS.slice(0, count - 1), CLOSING_TOPIC];
}

/**
 * Builds 3–12 topics that share the course duration (each at least five minutes, summing to it when it allows).
 * The first topic is the free preview; every third topic and the last one end with a quiz.
 */
export function buildTopics(titles: string[], durationMinutes: number): CatalogueTopic[] {
  const chosen = titles.slice(0, MAX_TOPICS);
  if (chosen.length < MIN_TOPICS) chosen.push(...(chosen.length ? [CLOSING_TOPIC] : genericTitles(durationMinutes)));
  while (chosen.length < MIN_TOPICS) chosen.splice(chosen.length - 1, 0, GENERIC_TOPICS[chosen.length]);
  const n = chosen.length;
  const base = Math.floor(durationMinutes / n);
  const extra = durationMinutes - base * n;
  return chosen.map((title, i) => ({
    title,
    durationMinutes: Math.max(MIN_TOPIC_MINUTES, base + (i < extra ? 1 : 0)),
    hasQuiz: i % 3 === 2 || i === n - 1,
    isPreview: i === 0,
  }));
}
