import type { Level } from '../courses/course-level';
import { SearchLexicon, words } from './search-lexicon';

export interface SearchFilters {
  level?: Level;
  category?: string;
  maxCreditCost?: number;
  maxDurationHours?: number;
  /** Canonical organisation or tutor name, resolved against the catalogue. */
  organisation?: string;
}

/** Filters said in words (level, price, duration), the text left to rank, and "from X"/"by X" phrases to resolve. */
export interface ExtractedFilters {
  filters: SearchFilters;
  rest: string;
  /** Longest first; each is the phrase and the text left when it names an organisation or tutor. */
  organisationCandidates: Array<{ phrase: string; rest: string }>;
}

/** One thing the learner asked for, as alternative phrases (a synonym group), each a list of words. */
export type Concept = string[][];

const HOURS = String.raw`(\d+(?:\.\d+)?)\s*(?:hours?|hrs?|h)\b`;
const UNDER = String.raw`(?:under|less than|below|at most|max(?:imum)?|up to|no more than|within|fewer than|<)\s*`;

// A word naming who or what a course is for ("course", "guide", "level"): a level, price or duration word before it
// describes the course ("beginner python course", "free online class", "short course on writing").
const COURSE_WORD = String.raw`(?:course|class|lesson|tutorial|training|program|programme|guide|intro|introduction|overview|level|certificate|mooc)(?:e?s)?`;

// A course word at most three words after ("free online course", "expert level").
const COURSE_WORD_AFTER = new RegExp(String.raw`^(?:'s|s'|')?\s*(?:[\p{L}\p{N}-]+\s+){0,3}${COURSE_WORD}\b`, 'u');
// A course word at most three words before ("python courses that are free", "web design classes, free").
const COURSE_WORD_BEFORE = new RegExp(String.raw`\b${COURSE_WORD}\b[\s,]*(?:[\p{L}\p{N}'-]+[\s,]+){0,2}$`, 'u');
// Said of the course or the learner with a verb "to be" ("that are free", "someone who is a complete beginner").
const SAID_OF = /\b(?:is|are|am|be|'m|'re)\s+(?:(?:completely|totally|entirely|really|always)\s+)?(?:an?\s+)?$/;

/**
 * Words naming a level, price or duration that are also ordinary words ("experts", "free", "short"), and when they
 * describe the course asked for rather than something the learner asks about: said of the learner ("for beginners",
 * "as a beginner", "who is a beginner"), of a course word at most three words on or before ("expert level", "free
 * online course", "courses that are free"), or at a keyword query's edge ("free python", "guitar beginners"). Elsewhere, in a question, they are the question's own words:
 * "how do lab experts analyse…", "the free tool statisticians rely on", "write a short story"; read as filters they
 * would hide every relevant course outside them.
 */
function describesCourse(before: string, after: string, said: boolean): boolean {
  if (said) return true;
  if (COURSE_WORD_AFTER.test(after.trim())) return true;
  if (COURSE_WORD_BEFORE.test(before) || SAID_OF.test(before)) return true;
  const wordsBefore = words(before).length;
  const wordsAfter = words(after).length;
  return wordsBefore === 0 || (wordsAfter === 0 && wordsBefore <= 3);
}

// Each rule: the phrase, and whether it names the level by itself (an adjective or a fixed phrase) or only where it
// describes the course (a noun: "experts", "beginners").
const LEVEL_RULES: Array<[RegExp, Level]> = [
  [
    /\b(introductory\b|beginners?[- ]friendly\b|entry[- ]level\b|from scratch\b|(?:with )?no (?:prior )?experience\b|starting out\b)|\b(for (?:the |an? )?|as an? |i am an? |i'm an? )?(?:(?:complete|absolute|total) )?(?:beginners?|newbies?|novices?|dummies)\b/g,
    'Beginner',
  ],
  [/\b(for )?(intermediate)(?: level| learners?)?\b/g, 'Intermediate'],
  [/\b(advanced(?: level| learners?)?\b|expert[- ]level\b)|\b(for (?:the |an? )?|as an? |i am an? |i'm an? )?experts?\b/g, 'Advanced'],
];

// "short" and "a weekend" are read as upper bounds on the course's duration.
const SHORT_HOURS = 10;
const WEEKEND_HOURS = 16;

const STOP_AFTER_ORG = /^(?:for|with|in|on|about|that|and|or|to|under|less|free|\d+)$/;

/** Pulls level, price and duration phrases out of the query (they become filters and are not ranked). */
export function extractFilters(query: string, lexicon: SearchLexicon): ExtractedFilters {
  let text = ` ${query.toLowerCase().replace(/\s+/g, ' ')} `;
  const filters: SearchFilters = {};
  const take = (re: RegExp, apply: (m: RegExpExecArray) => void) => {
    text = text.replace(re, (...args) => {
      apply(args as unknown as RegExpExecArray);
      return ' ';
    });
  };
  // Takes the phrase only where it describes the course asked for (describesCourse); elsewhere it stays to be ranked.
  const takeDescribing = (re: RegExp, apply: (m: RegExpExecArray) => void, said: (m: RegExpExecArray) => boolean) => {
    text = text.replace(re, (...args) => {
      const m = args as unknown as RegExpExecArray;
      const at = args[args.length - 2] as number;
      const whole = args[args.length - 1] as string;
      if (!describesCourse(whole.slice(0, at), whole.slice(at + m[0].length), said(m))) return m[0];
      apply(m);
      return ' ';
    });
  };

  for (const [re, level] of LEVEL_RULES)
    takeDescribing(
      re,
      () => (filters.level ??= level),
      (m) => Boolean(m[1] || m[2]),
    );

  take(new RegExp(String.raw`\b${UNDER}(\d+)\s*credits?\b|\b(\d+)\s*credits? or (?:less|fewer)\b`, 'g'), (m) => {
    filters.maxCreditCost = Math.min(filters.maxCreditCost ?? Infinity, Number(m[1] ?? m[2]));
  });
  takeDescribing(
    /\b(for free\b|free of charge\b|no cost\b|without paying\b|zero credits?\b|costs? nothing\b)|\bfree\b/g,
    () => (filters.maxCreditCost = 0),
    (m) => Boolean(m[1]),
  );

  const hours = (n: number) => (filters.maxDurationHours = Math.min(filters.maxDurationHours ?? Infinity, n));
  take(new RegExp(String.raw`\b${UNDER}${HOURS}|\b${HOURS}\s*(?:or less|max(?:imum)?|at most)\b`, 'g'), (m) => hours(Number(m[1] ?? m[2])));
  take(new RegExp(String.raw`\b${UNDER}(\d+)\s*(?:minutes?|mins?)\b`, 'g'), (m) => hours(Math.max(1, Math.ceil(Number(m[1]) / 60))));
  take(/\b(?:over |in |during |on )?(?:a|one|the|this|one single) weekend\b/g, () => hours(WEEKEND_HOURS));
  takeDescribing(
    /\b(?:short|quick|brief)\b/g,
    () => hours(SHORT_HOURS),
    () => false,
  );

  return { filters, rest: text.replace(/\s+/g, ' ').trim(), organisationCandidates: organisationCandidates(text, lexicon) };
}

/** "python from harvard university" → ["harvard university", "harvard"], each with the text left without it. */
function organisationCandidates(text: string, lexicon: SearchLexicon): ExtractedFilters['organisationCandidates'] {
  const out: ExtractedFilters['organisationCandidates'] = [];
  const re = /\b(?:from|by|at|offered by|taught by|made by)\s+([^\s].*)$/;
  const m = re.exec(text.trim());
  if (!m) return out;
  const after = words(m[1]);
  const end = after.findIndex((w) => STOP_AFTER_ORG.test(w) || (lexicon.stopwords.has(w) && w.length < 3));
  const head = after.slice(0, Math.min(4, end === -1 ? after.length : end));
  const before = text.trim().slice(0, m.index);
  for (let n = head.length; n >= 1; n--) {
    const phrase = head.slice(0, n).join(' ');
    // Function words alone name no organisation ("at the top of …": "the" is in many organisations' names).
    if (phrase.length < 2 || head.slice(0, n).every((w) => lexicon.stopwords.has(w))) continue;
    out.push({ phrase: lexicon.organisations.get(phrase) ?? phrase, rest: `${before} ${after.slice(n).join(' ')}`.trim() });
  }
  return out;
}

/** A category name in the words: where it starts, how many words it spans, and the category. */
export interface CategoryMention {
  at: number;
  words: number;
  category: string;
}

/** Where the words name a category (the longest known phrase at each position, as buildConcepts reads them). */
export function categoryMentions(tokens: string[], lexicon: SearchLexicon): CategoryMention[] {
  const out: CategoryMention[] = [];
  for (let i = 0; i < tokens.length;) {
    let n = Math.min(lexicon.maxPhraseWords, tokens.length - i);
    for (; n >= 1 && !lexicon.phrases.has(tokens.slice(i, i + n).join(' ')); n--);
    const entry = n ? lexicon.phrases.get(tokens.slice(i, i + n).join(' ')) : undefined;
    if (entry?.kind === 'category') out.push({ at: i, words: n, category: entry.category });
    i += Math.max(1, n);
  }
  return out;
}

// A question in more content words than this names its subject in all of them: a category name among them is one of
// those words ("how do I design a study…", "the language exam foreign students must take…"), not a filter.
const QUESTION_CONTENT_WORDS = 4;
// Words after which a category name is a verb the learner uses ("how do I design…", "we can design…").
const SUBJECT_OR_MODAL = new Set(['i', 'we', 'you', 'they', 'can', 'could', 'should', 'would', 'will', 'must', 'might', 'may']);

/**
 * Positions of category names that are ordinary words of the query rather than the category asked for: a verb after a
 * subject or modal, or any in a question of more than QUESTION_CONTENT_WORDS content words. They are ranked like any
 * other word (buildConcepts' `subjectAt`); as filters they would hide every relevant course filed under another one.
 */
export function ordinaryCategoryWords(tokens: string[], mentions: CategoryMention[], lexicon: SearchLexicon): Set<number> {
  const question = tokens.filter((t) => !lexicon.stopwords.has(t)).length > QUESTION_CONTENT_WORDS;
  return new Set(mentions.filter((m) => question || (m.at > 0 && SUBJECT_OR_MODAL.has(tokens[m.at - 1]))).map((m) => m.at));
}

/**
 * Groups the remaining words into concepts: the longest known phrase at each position wins; a category name
 * becomes the category filter (the first one only), a synonym phrase brings its whole group, topic-less words go.
 * A category name at a position in `subjectAt` is part of a subject the learner named ("user experience design"):
 * it is ranked like any other word, not a filter. A category name that is the only thing left to rank is both the
 * filter and a ranked word, so that the courses naming it come first within the category.
 */
export function buildConcepts(tokens: string[], lexicon: SearchLexicon, filters: SearchFilters, subjectAt: ReadonlySet<number> = new Set()): Concept[] {
  const concepts: Concept[] = [];
  const seen = new Set<string>();
  let filterPhrase: string | undefined;
  for (let i = 0; i < tokens.length;) {
    let matched = false;
    for (let n = Math.min(lexicon.maxPhraseWords, tokens.length - i); n >= 1 && !matched; n--) {
      const phrase = tokens.slice(i, i + n).join(' ');
      const entry = lexicon.phrases.get(phrase);
      if (!entry) continue;
      if (entry.kind === 'category' && !filters.category && !subjectAt.has(i)) {
        filters.category = entry.category;
        filterPhrase = phrase;
      } else {
        const phrases = entry.kind === 'synonyms' ? entry.phrases : [phrase];
        const key = phrases.join('|');
        if (!seen.has(key)) concepts.push(phrases.map((p) => p.split(' ')));
        seen.add(key);
      }
      i += n;
      matched = true;
    }
    if (matched) continue;
    const word = tokens[i++];
    if (lexicon.stopwords.has(word) || seen.has(word)) continue;
    seen.add(word);
    concepts.push([[word]]);
  }
  if (!concepts.length && filterPhrase) concepts.push([filterPhrase.split(' ')]);
  return concepts;
}

/** A tsquery text (to_tsquery syntax) over sanitised words: phrases with <->, alternatives with |, concepts joined by `op`. */
export function toTsQuery(concepts: Concept[], op: '|' | '&'): string {
  return concepts.map((alts) => `(${alts.map((p) => p.join(' <-> ')).join(' | ')})`).join(` ${op} `);
}
