import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../common/project-root';

/** A phrase the parser recognises: a catalogue category, or one member of a synonym group. */
export type LexiconEntry = { kind: 'category'; category: string } | { kind: 'synonyms'; phrases: string[] };

interface LexiconFile {
  synonyms: string[][];
  categories: Record<string, string[]>;
  stopwords: string[];
  organisations: Record<string, string>;
}

/** Lower-cased words of letters and digits (accents kept): the only characters that ever reach a tsquery. */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * The search vocabulary kept as data (data/search-synonyms.json): synonym groups, category names and their aliases,
 * words that carry no topic, and short names of organisations.
 */
export class SearchLexicon {
  readonly phrases = new Map<string, LexiconEntry>();
  readonly stopwords: Set<string>;
  readonly organisations = new Map<string, string>();
  readonly maxPhraseWords: number;
  /** Every word of a known phrase: never "corrected", even when no course uses it. */
  readonly knownWords: Set<string>;

  constructor(file: LexiconFile) {
    this.stopwords = new Set(file.stopwords.flatMap(words));
    for (const group of file.synonyms) {
      const phrases = group.map((p) => words(p).join(' ')).filter(Boolean);
      for (const p of phrases) if (!this.phrases.has(p)) this.phrases.set(p, { kind: 'synonyms', phrases });
    }
    // Categories win over synonyms for the same phrase: "math courses" is the Math category.
    for (const [category, aliases] of Object.entries(file.categories)) {
      for (const alias of [category, ...aliases]) this.phrases.set(words(alias).join(' '), { kind: 'category', category });
    }
    for (const [short, name] of Object.entries(file.organisations)) this.organisations.set(words(short).join(' '), name);
    this.knownWords = new Set([...this.phrases.keys(), ...this.organisations.keys()].flatMap((p) => p.split(' ')));
    this.maxPhraseWords = Math.max(...[...this.phrases.keys()].map((p) => p.split(' ').length));
  }

  static load(path = join(projectRoot(), 'data', 'search-synonyms.json')): SearchLexicon {
    return new SearchLexicon(JSON.parse(readFileSync(path, 'utf8')) as LexiconFile);
  }
}
