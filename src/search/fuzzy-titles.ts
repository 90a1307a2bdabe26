/**
 * The published courses' titles by word, for ranking them by the words of a query as typed, with no correction: a
 * misspelt word finds the titles holding a word a slip or two away from it (a letter dropped, doubled, struck by the
 * wrong key, two letters swapped), looked up in a deletion index over the titles' vocabulary (each word and each way of
 * dropping one of its letters), never over the titles themselves, so a look-up costs what the query's words match, not
 * the catalogue. A query word with a letter dropped matches a title word when both lose the same letter or the title
 * word loses the one the learner left out ("robtics": robotics less its second o), which trigram look-ups miss inside
 * short words.
 */
import { TimeSlices } from '../common/time-slices';

// Typed words shorter than this are matched exactly (short words are a slip away from dozens of others).
const MIN_FUZZY_LENGTH = 4;
// Typed words this long may be two slips from the title word; shorter ones one.
const TWO_SLIPS_LENGTH = 8;
// Two typed words read as one misspelt title word make at least this many letters (shorter joins match by chance).
const JOINED_MIN_LENGTH = 7;
// Typed words this long (and shorter than TWO_SLIPS_LENGTH) may be two slips from the title word when none is one away.
const SHORT_TWO_SLIPS_LENGTH = 5;
// Titles added between two looks at the clock in build(): ~1 ms at 20,000 courses, well inside a slice.
const BUILD_CHUNK = 256;

export interface FuzzyTitleOptions {
  /**
   * Titles a misspelt word finds at most: its matches are taken closest first and, at the same distance, rarest first,
   * and a match that would take it over this many titles is skipped (a word a slip from a very common one, "moden"
   * from model, finds the rarer matches alone). What the ranking costs is bounded by it.
   */
  maxTitlesPerWord: number;
  /** Courses ranked at most. */
  depth: number;
}

interface WordMatch {
  word: number;
  similarity: number;
}

/** The restricted Damerau–Levenshtein distance (optimal string alignment): a swap of two neighbours is one edit. */
export function slipDistance(a: string, b: string, max = Infinity): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d = new Array<number>(rows * cols);
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    let rowMin = Infinity;
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[(i - 1) * cols + j] + 1, d[i * cols + j - 1] + 1, d[(i - 1) * cols + j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[(i - 2) * cols + j - 2] + 1);
      d[i * cols + j] = v;
      rowMin = Math.min(rowMin, v);
    }
    if (rowMin > max) return max + 1;
  }
  return d[rows * cols - 1];
}

/** The words of a title or query as the index keeps them: lower-cased runs of letters and digits. */
export function titleWords(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

function swaps(word: string): string[] {
  const out = new Set<string>();
  for (let i = 0; i + 1 < word.length; i++) if (word[i] !== word[i + 1]) out.add(word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2));
  return [...out];
}

function deletions(word: string): string[] {
  const out = new Set<string>();
  for (let i = 0; i < word.length; i++) out.add(word.slice(0, i) + word.slice(i + 1));
  return [...out];
}

export class FuzzyTitleIndex {
  /** Word id → word. */
  private readonly vocabulary: string[] = [];
  private readonly ids = new Map<string, number>();
  /** Word id → the courses whose title holds it. */
  private readonly postings: number[][] = [];
  /** A word of the vocabulary, or one with a letter dropped → the word ids it comes from. */
  private readonly deleted = new Map<string, number[]>();
  /** Course id → its title's distinct word ids. */
  private readonly titles = new Map<number, Uint32Array>();

  /** The index in one synchronous step: for a small catalogue, and the reference the sliced build() equals. */
  constructor(courses: Iterable<{ id: number; title: string }>) {
    for (const { id, title } of courses) this.add(id, title);
  }

  /**
   * The same index as the constructor's, built in slices between which the event loop runs other work (TimeSlices):
   * at 20,000 courses the build takes ~70 ms, which a search or any other request arriving meanwhile would wait. The
   * titles are added in the same order, so the vocabulary's ids, the postings and the deletion lists are the same.
   */
  static async build(courses: ReadonlyArray<{ id: number; title: string }>, slices = new TimeSlices()): Promise<FuzzyTitleIndex> {
    const index = new FuzzyTitleIndex([]);
    for (let i = 0; i < courses.length;) {
      const end = Math.min(courses.length, i + BUILD_CHUNK);
      for (; i < end; i++) index.add(courses[i].id, courses[i].title);
      await slices.pause();
    }
    return index;
  }

  private add(id: number, title: string): void {
    const own = new Set<number>();
    for (const w of titleWords(title)) {
      let wid = this.ids.get(w);
      if (wid === undefined) {
        wid = this.vocabulary.length;
        this.vocabulary.push(w);
        this.ids.set(w, wid);
        this.postings.push([]);
        if (w.length >= MIN_FUZZY_LENGTH - 1) {
          for (const key of [w, ...deletions(w)]) {
            const from = this.deleted.get(key);
            if (from) from.push(wid);
            else this.deleted.set(key, [wid]);
          }
        }
      }
      if (!own.has(wid)) {
        own.add(wid);
        this.postings[wid].push(id);
      }
    }
    this.titles.set(id, Uint32Array.from(own));
  }

  get size(): number {
    return this.titles.size;
  }

  /** The title words a typed word may stand for, each with its similarity (1 − slips / the word's length). */
  matches(typed: string): WordMatch[] {
    const exact = this.ids.get(typed);
    if (typed.length < MIN_FUZZY_LENGTH) return exact === undefined ? [] : [{ word: exact, similarity: 1 }];
    const once = this.within(typed, typed.length >= TWO_SLIPS_LENGTH ? 2 : 1);
    // A word of five to seven letters with two slips ("jsutcie", "enrgey") is looked for only when no title word is one
    // slip away: one slip away is what the learner meant far more often.
    if (once.length || typed.length < SHORT_TWO_SLIPS_LENGTH || typed.length >= TWO_SLIPS_LENGTH) return once;
    // Two slips: the deletion keys find two letters dropped or added and a changed letter with one of them; a swap
    // and another slip ("etihc" for ethics, "jsutcie" for justice) is found from each swap of the typed word. Title
    // words two letters shorter or longer are left out: "etihc" is no slip of "thc".
    const twice = new Map<number, WordMatch>();
    for (const variant of [typed, ...swaps(typed)]) {
      for (const m of this.within(variant, variant === typed ? 2 : 1)) {
        const word = this.vocabulary[m.word];
        if (twice.has(m.word) || Math.abs(word.length - typed.length) > 1) continue;
        const d = slipDistance(typed, word, 2);
        if (d <= 2) twice.set(m.word, { word: m.word, similarity: 1 - d / typed.length });
      }
    }
    return [...twice.values()];
  }

  /**
   * The title word a misspelt word most likely stands for: the closest match, at the same distance the one more titles
   * hold; null when none is a slip or two away (two for words of five letters or more).
   */
  closest(typed: string): string | null {
    if (typed.length < SHORT_TWO_SLIPS_LENGTH) return null;
    return this.likeliest(this.matches(typed));
  }

  /** The closest of the matches, at the same distance the word more titles hold; null when there is none. */
  private likeliest(matches: WordMatch[]): string | null {
    let best: WordMatch | null = null;
    for (const m of matches) {
      if (!best || m.similarity > best.similarity || (m.similarity === best.similarity && this.postings[m.word].length > this.postings[best.word].length))
        best = m;
    }
    return best ? this.vocabulary[best.word] : null;
  }

  private within(typed: string, max: number): WordMatch[] {
    const keys = new Set([typed, ...deletions(typed)]);
    if (max === 2) for (const once of deletions(typed)) for (const twice of deletions(once)) keys.add(twice);
    const seen = new Set<number>();
    const out: WordMatch[] = [];
    for (const key of keys) {
      for (const word of this.deleted.get(key) ?? []) {
        if (seen.has(word)) continue;
        seen.add(word);
        const d = slipDistance(typed, this.vocabulary[word], max);
        if (d <= max) out.push({ word, similarity: 1 - d / typed.length });
      }
    }
    return out;
  }

  /**
   * The title word two typed words stand for when typed as one ("class room" → classroom, "geo poltics" →
   * geopolitics): the title word they make together, or, when `slips` (one of them is misspelt) and they make at least
   * JOINED_MIN_LENGTH letters, a title word one slip from it, the one more titles hold (one slip only: the join is a
   * guess already, and two slips from a long join cost a few hundred look-ups). Null when no title word is that close.
   */
  joined(first: string, second: string, slips: boolean): string | null {
    const together = first + second;
    if (this.ids.has(together)) return together;
    if (!slips || together.length < JOINED_MIN_LENGTH) return null;
    return this.likeliest(this.within(together, 1));
  }

  /**
   * The titles ranked by the query's content words as typed: the titles holding a match of a misspelt word (at most
   * options.maxTitlesPerWord each), each scored Σ over the typed words of weight × the similarity of its closest
   * match in the title, a word weighing ln(1 + titles found / titles holding a match of it), so that a common word
   * typed right ("security", "web") does not rule over the rare word the learner misspelt.
   */
  rank(typed: string[], misspelt: Iterable<string>, options: FuzzyTitleOptions): Array<{ id: number; score: number }> {
    const words = [...new Set(typed)];
    const matchesOf = new Map(words.map((w) => [w, this.matches(w)]));
    const found = new Set<number>();
    for (const w of new Set(misspelt)) {
      const list = [...(matchesOf.get(w) ?? this.matches(w))].sort(
        (a, b) => b.similarity - a.similarity || this.postings[a.word].length - this.postings[b.word].length || a.word - b.word,
      );
      let taken = 0;
      for (const m of list) {
        const courses = this.postings[m.word];
        if (taken + courses.length > options.maxTitlesPerWord) continue;
        taken += courses.length;
        for (const id of courses) found.add(id);
      }
    }
    if (!found.size) return [];
    // Each title word a typed word may stand for, with its similarity to each typed word (0 for the others).
    const similarities = new Map<number, Float64Array>();
    const weights = words.map((w, k) => {
      const list = matchesOf.get(w)!;
      for (const m of list) {
        let row = similarities.get(m.word);
        if (!row) similarities.set(m.word, (row = new Float64Array(words.length)));
        row[k] = m.similarity;
      }
      const holding = list.reduce((n, m) => n + this.postings[m.word].length, 0);
      return holding ? Math.log(1 + found.size / holding) : 0;
    });
    const best = new Float64Array(words.length);
    const out: Array<{ id: number; score: number }> = [];
    for (const id of found) {
      best.fill(0);
      for (const wid of this.titles.get(id)!) {
        const row = similarities.get(wid);
        if (row) for (let k = 0; k < row.length; k++) if (row[k] > best[k]) best[k] = row[k];
      }
      let score = 0;
      for (let k = 0; k < best.length; k++) score += weights[k] * best[k];
      out.push({ id, score });
    }
    return out.sort((a, b) => b.score - a.score || a.id - b.id).slice(0, options.depth);
  }
}
