import type { Queryable } from '../common/database';
import type { CoursesService } from '../courses/courses.service';
import { InterpretedDto, RelaxedFilter, SearchResponseDto, SearchResultDto } from './dto/search.dto';
import { COMMON_WORD_RANK, CorrectionCandidate, LexicalSearch, RankedHit, RankedPage } from './lexical-search.store';
import { buildConcepts, CategoryMention, categoryMentions, Concept, extractFilters, ordinaryCategoryWords, SearchFilters } from './query-parser';
import { lexicalLedFusion, standardScoreFusion } from './rank-fusion';
import { ENCODER, FUSION, FUZZY_TITLES, SPELLING } from './ranking-weights';
import type { SearchFacts } from './search-facts';
import { SearchLexicon, words } from './search-lexicon';
import { correctable, firstPlausible, preferSlips, typingSlips } from './spelling';
import { EmbeddedSemantic } from './semantic/embedded-semantic';
import type { WordVector } from './semantic/course-vector-index';
import { SemanticSearch } from './semantic-search';
import type { SentenceRanker } from './encoder/sentence-ranker';

// Candidates each ranking contributes to the fusion.
const FUSION_DEPTH = 100;
// Concepts ranked at most: a 500-character query holds ~80 words, and each is a term of every ranking statement.
const MAX_CONCEPTS = 16;
// A semantic candidate this close to the query counts as a match when deciding whether filters must be relaxed.
const STRONG_SEMANTIC_MATCH = 0.55;
// A correction naming at most this many courses (outside their descriptions) makes the lexical ranking lead.
const RARE_CORRECTION_COURSES = 10;
// Concepts a query has at most for its subject's courses to come first (subjectFirst).
const MAX_SUBJECT_CONCEPTS = 4;
// A concept scoring under this share of the subject's (subjectScores) is said in passing ("skills" beside leadership,
// 0.19 against 1.17; "science", in more heads than are counted, 0): the subject's courses are not ordered by it.
const SUBJECT_TITLE_SHARE = 0.25;
// A concept typed right scoring this many times the best corrected one's (subjectScores) is the subject all the same:
// the correction is a word most subjects' courses use ("child developmnt": child 2.07, development 0.36), while a
// word typed right beside a correction that names a subject scores within about three times it ("teachng englsh tesol":
// tesol 3.84, english 1.61, and the English-teaching courses are the answer).
const SUBJECT_OVER_CORRECTED = 4;
/** A subject's ranking asked ahead of subjectFirst (rankSubject), with what it was asked for. */
interface SubjectRanking {
  subject: Concept;
  said: string;
  filters: SearchFilters;
  page: RankedPage;
}
/** A query short enough for its subject to be told by counting (subjectFirst); a longer one is a question. */
const isShortQuery = (concepts: Concept[]) => concepts.length >= 2 && concepts.length <= MAX_SUBJECT_CONCEPTS;
// Known words of one query checked for a real-word typo.
const MAX_REAL_WORD_SUSPECTS = 4;

/**
 * Whether the lexical ranking's order leads the fusion (lexicalLedFusion) instead of counting as one ranking's standard
 * scores among the others (standardScoreFusion): when some course names every concept, or when a query of at most
 * MAX_SUBJECT_CONCEPTS concepts had a word corrected, to one few courses name ("kubernets" → kubernetes) or, beside
 * another concept, to any ("biolgy of the cel"). A longer question's "correction" is mostly an uncommon real word read
 * as a typo ("stabling" → stable, "fracked" → cracked, "believably" → believe): leading with it would bury what the
 * other rankings have right, so such a question is fused by standard scores like any other.
 */
export function lexicalLeads(page: Pick<RankedPage, 'allConcepts' | 'hits'>, concepts: number, corrected: boolean, rareCorrection: boolean): boolean {
  if (page.allConcepts) return true;
  const short = concepts <= MAX_SUBJECT_CONCEPTS && (rareCorrection || concepts >= 2);
  return corrected && short && page.hits.length > 0;
}

/**
 * Whether an unknown word of a short query is still misspelt once corrected: no correction chosen (or none found) and
 * no word vector either. Such a word is read by the lexical ranking's title trigrams alone ("oceanegraphy"); a word
 * with a word vector is ordinary English the spelling statement skips ("forget", "puppy's") and reads as any other.
 */
export function leftMisspelt(unknown: string[], corrections: ReadonlyMap<string, string>, english: ReadonlyMap<string, unknown>): boolean {
  return unknown.some((w) => !corrections.has(w) && !english.has(w));
}

/**
 * The words typed with a capital letter after the query's first word: names ("the Cree and the Inuit", "a trip to
 * Rome"), which are never taken for another real word a slip away (free, rose). Lower-cased as the query's words are.
 */
export function namesIn(query: string): Set<string> {
  const typed = query.trim().split(/\s+/).slice(1);
  return new Set(typed.filter((w) => /^[A-Z][a-z]/.test(w)).map((w) => w.toLowerCase().replace(/[^a-z].*$/, '')));
}

/** Filters said in words, least important first: relaxed in this order when together they leave no course. */
const RELAXABLE: Array<[keyof SearchFilters, RelaxedFilter]> = [
  ['maxDurationHours', 'max_duration_hours'],
  ['maxCreditCost', 'max_credit_cost'],
  ['level', 'level'],
  ['category', 'category'],
  ['organisation', 'organisation'],
];

export interface SearchLogger {
  warn(message: string): void;
}

export interface SemanticRankers {
  /** The embedded engine (word vectors from npm), on by default. */
  embedded?: EmbeddedSemantic;
  /** The hosted model of SEARCH_EMBEDDINGS_URL, when configured. */
  hosted?: SemanticSearch;
  /** The sentence encoder (Universal Sentence Encoder lite from npm), on by default. */
  encoder?: SentenceRanker;
}

/** Where results become catalogue list items: the courses feature's service. */
export type CourseListItems = Pick<CoursesService, 'publishedListItems'>;

interface Hit {
  id: number;
  score: number;
}

interface Candidates {
  hits: Hit[];
  strong: Set<number>;
}

/**
 * Natural-language search: filters from words, lexical ranking in PostgreSQL, fused with the sentence encoder's, the
 * embedded semantic engine's and the hosted model's rankings when they have something to say (by weighted reciprocal
 * rank when some course names every concept, by standard scores otherwise).
 */
export class SearchEngine {
  private readonly lexical: LexicalSearch;

  constructor(
    private readonly db: Queryable,
    private readonly lexicon: SearchLexicon,
    private readonly courses: CourseListItems,
    private readonly rankers: SemanticRankers = {},
    private readonly logger?: SearchLogger,
    /** The published courses' filter facts in memory, when kept: semantic candidates are then filtered without SQL. */
    private readonly facts?: SearchFacts,
  ) {
    this.lexical = new LexicalSearch(db);
  }

  async search(query: string, limit: number): Promise<SearchResponseDto> {
    const { filters, text, concepts, corrections, joins, rareFixes, tokens, semanticText, typedWords, misspelt, uncorrected } = await this.understand(query);
    const rareCorrection = rareFixes.length > 0;
    const semantic = Boolean(text && (this.rankers.embedded || this.rankers.hosted || this.rankers.encoder));
    const depth = semantic ? FUSION_DEPTH : limit;
    // The query goes to the sentence encoder's thread first and the lexical statements out next, so that the encoding
    // and PostgreSQL both work while the word-vector engine ranks on the event loop; the semantic candidates are
    // filtered while the lexical statements are still running: one round trip less.
    const encoderSide = semantic ? this.encoderCandidates(semanticText) : null;
    const corrected = correctedConcepts(concepts, tokens, corrections);
    const titleText = similarityText(concepts, tokens, corrected);
    const lexicalSide = this.lexical.rank(concepts, titleText, filters, limit, depth);
    // What names the subject of a short corrected query, asked meanwhile on another connection (subjectFirst may need
    // it once the lexical ranking is known); a failure only leaves the order as it is.
    const counted = saidFirst(concepts, tokens, corrected);
    const subjectScores = corrections.size && isShortQuery(concepts) ? this.lexical.subjectScores(counted).catch(() => null) : Promise.resolve(null);
    const subjectRanking = this.rankSubject(counted, corrected, subjectScores, filters, limit, depth);
    const semanticSide = (async () => {
      const [embedded, hosted, encoder] = await Promise.all([
        semantic ? this.embeddedCandidates(tokens) : null,
        semantic ? this.hostedCandidates(semanticText) : null,
        encoderSide,
      ]);
      return { embedded, hosted, encoder, filtered: await this.applyFilters([embedded, hosted, encoder], filters) };
    })();
    const [firstLexical, { embedded, hosted, encoder, filtered }] = await Promise.all([lexicalSide, semanticSide]);

    let applied = filters;
    let lexical = firstLexical;
    let [embeddedHits, hostedHits, encoderHits] = filtered;
    const relaxed: RelaxedFilter[] = [];
    const strong = (h: Hit) => Boolean(embedded?.strong.has(h.id) || hosted?.strong.has(h.id) || encoder?.strong.has(h.id));
    const matches = () => lexical.total > 0 || [embeddedHits, hostedHits, encoderHits].some((hits) => hits.some(strong));
    for (const [key, name] of RELAXABLE) {
      if (matches()) break;
      if (applied[key] === undefined) continue;
      applied = { ...applied, [key]: undefined };
      relaxed.push(name);
      [lexical, [embeddedHits, hostedHits, encoderHits]] = await Promise.all([
        this.lexical.rank(concepts, titleText, applied, limit, depth),
        this.applyFilters([embedded, hosted, encoder], applied),
      ]);
    }

    lexical = await this.subjectFirst(lexical, counted, rareFixes, corrected, subjectScores, applied, limit, depth, subjectRanking);
    let hits: RankedHit[] = lexical.hits.slice(0, limit);
    let total = lexical.total;
    const semanticLists = [embeddedHits, hostedHits, encoderHits].filter((list) => list.length);
    if (semanticLists.length) {
      // Some course names every concept, or a short query was corrected (a keyword typed wrong, as strong as one typed
      // right once corrected, whose subject's courses subjectFirst has put first: "biolgy of the cel"): the lexical
      // ranking's order leads and the others only break its ties, by rank (lexicalLeads). Otherwise the rankings'
      // scores are fused: how far a course stands out in each ranking counts.
      const ids = (list: Hit[]) => list.map((h) => h.id);
      // A misspelt word left as typed (no candidate fits: "oceanegraphy") is one only the lexical ranking's title
      // trigrams read; the other rankings know nothing of it and would lead with the query's other words alone.
      const misread = corrections.size > 0 || uncorrected;
      const leads = lexicalLeads(lexical, concepts.length, misread, rareCorrection);
      // A filter said in words and nothing corrected: the lexical ranking's clear gaps stay (lexicalLedFusion).
      const keepGaps = corrections.size === 0 && Object.values(applied).some((v) => v !== undefined);
      // A short query with a corrected word: its titles ranked by the words as typed, which needs no correction,
      // reorder what the lexical ranking puts close together when a correction was wrong or missing.
      const fuzzy =
        leads && misread && concepts.length <= MAX_SUBJECT_CONCEPTS
          ? (this.facts?.fuzzyTitles(typedWords, misspelt, applied, { maxTitlesPerWord: FUZZY_TITLES.maxTitlesPerWord, depth }) ?? [])
          : [];
      hits = (
        leads
          ? lexicalLedFusion(
              lexical,
              [
                { ids: ids(embeddedHits), weight: FUSION.embeddedWhenLexicalStrong },
                { ids: ids(hostedHits), weight: FUSION.hostedWhenLexicalStrong },
                { ids: ids(encoderHits), weight: FUSION.encoderWhenLexicalStrong },
                { ids: ids(fuzzy), weight: FUZZY_TITLES.weight },
              ],
              keepGaps,
            )
          : standardScoreFusion([
              { hits: lexical.hits, weight: FUSION.lexicalWeak },
              { hits: embeddedHits, weight: FUSION.embedded },
              { hits: hostedHits, weight: FUSION.hosted },
              { hits: encoderHits, weight: FUSION.encoder },
            ])
      ).slice(0, limit);
      const inLexical = new Set(ids(lexical.hits));
      total += new Set(semanticLists.flat().flatMap((h) => (inLexical.has(h.id) ? [] : [h.id]))).size;
    }
    return {
      query,
      interpreted: interpreted(filters, text, corrections, joins),
      engine: semanticLists.length ? 'semantic' : 'lexical',
      ...(relaxed.length ? { relaxed } : {}),
      results: await this.hydrate(hits),
      total,
    };
  }

  /**
   * Corrected words are what the learner typed the query for, and the courses naming its subject come first. When no
   * course names every concept outside its description and a misspelt word was corrected to one few courses name
   * ("kubernets deploymnet"), or when some course does but fewer than the page shows and any word was corrected
   * ("calculas for enginers"), the order is: the courses naming every concept outside their descriptions, then those
   * naming the subject (subjectOf: "calculus", not "engineers"), then the other matches, even where those name
   * every concept somewhere in their descriptions. The second case is for short queries only (at most
   * MAX_SUBJECT_CONCEPTS concepts): a question's words are ranked by the other engines. Which courses name every
   * concept depends on `limit` (LexicalSearch.rank), so the order does too.
   */
  private async subjectFirst(
    page: RankedPage,
    concepts: Concept[],
    rareFixes: string[],
    corrected: boolean[],
    subjectScores: Promise<number[] | null>,
    filters: SearchFilters,
    limit: number,
    depth: number,
    asked: Promise<SubjectRanking | null> = Promise.resolve(null),
  ): Promise<RankedPage> {
    const short = isShortQuery(concepts);
    const scores = await subjectScores;
    // A concept in more heads than are counted narrows nothing ("sciense" → science): naming it beside the others is
    // no evidence, and the courses naming every concept are not set first, however many they are.
    const common = Boolean(page.allConcepts && scores?.some((s) => s === 0));
    const allIds = page.allConcepts && !common ? (page.allIds ?? []) : [];
    const applies = (rareFixes.length > 0 && !page.allConcepts) || (scores !== null && (allIds.length < limit || common));
    if (!applies || concepts.length < 2 || !page.hits.length) return page;
    // A long query's concepts are not counted (two look-ups each): its rarest corrected word's concept leads.
    const subject = short ? scores && subjectOf(concepts, scores, corrected) : concepts.find((c) => c.some((alt) => alt.includes(rareFixes[0])));
    if (!subject) return page;
    const said = scores ? subjectTitleText(concepts, subject, scores) : subject[0].join(' ');
    const early = await asked;
    const first =
      early && early.subject === subject && early.said === said && early.filters === filters
        ? early.page
        : await this.lexical.rank([subject], said, filters, limit, depth);
    if (!first.hits.length) return page;
    const all = new Set(allIds);
    const lead = page.hits.filter((h) => all.has(h.id));
    const named = first.hits.filter((h) => !all.has(h.id));
    const seen = new Set([...all, ...named.map((h) => h.id)]);
    const top = Math.max(...page.hits.map((h) => h.score), ...named.map((h) => h.score));
    // Scores stay non-increasing: each group above the next, each in its own order.
    const hits = [
      ...lead.map((h) => ({ id: h.id, score: 2 * (top + 1) + h.score })),
      ...named.map((h) => ({ id: h.id, score: top + 1 + h.score })),
      ...page.hits.filter((h) => !seen.has(h.id)),
    ].slice(0, depth);
    return { ...page, hits };
  }

  /**
   * subjectFirst's ranking of a short corrected query's subject, asked as soon as the subject scores name it rather
   * than once the first ranking is back: at 20,000 courses it was needed for about half of those queries, and asked
   * after the first ranking it added a statement's round trip to each. When subjectFirst does not apply, or applies
   * with other filters (relaxed ones), the answer is left unused. A failure leaves subjectFirst to ask again.
   */
  private async rankSubject(
    concepts: Concept[],
    corrected: boolean[],
    subjectScores: Promise<number[] | null>,
    filters: SearchFilters,
    limit: number,
    depth: number,
  ): Promise<SubjectRanking | null> {
    const scores = await subjectScores;
    if (!scores || !isShortQuery(concepts)) return null;
    const subject = subjectOf(concepts, scores, corrected);
    if (!subject) return null;
    const said = subjectTitleText(concepts, subject, scores);
    const page = await this.lexical.rank([subject], said, filters, limit, depth).catch(() => null);
    return page && { subject, said, filters, page };
  }

  /** The embedded engine's candidates (unfiltered), or null when it is not ready or knows none of the words. */
  private async embeddedCandidates(tokens: string[]): Promise<Candidates | null> {
    if (!this.rankers.embedded) return null;
    try {
      const hits = await this.rankers.embedded.rank(tokens, FUSION_DEPTH * 3);
      if (!hits) return null;
      return { hits, strong: new Set(hits.filter((h) => h.score >= STRONG_SEMANTIC_MATCH).map((h) => h.id)) };
    } catch (e) {
      this.logger?.warn(`embedded semantic ranking skipped: ${(e as Error).message}`);
      return null;
    }
  }

  /** The sentence encoder's candidates (unfiltered), or null while it has no model or no course vectors. */
  private async encoderCandidates(text: string): Promise<Candidates | null> {
    if (!this.rankers.encoder) return null;
    try {
      const hits = await this.rankers.encoder.rank(text, FUSION_DEPTH * 3);
      if (!hits) return null;
      // By the cosine to the query as typed: after feedback, a query for a subject with no free course still has
      // free courses close to it ("free python course for beginners" would never relax its price).
      return { hits, strong: new Set(hits.filter((h) => h.cosine >= ENCODER.strong).map((h) => h.id)) };
    } catch (e) {
      this.logger?.warn(`sentence encoder ranking skipped: ${(e as Error).message}`);
      return null;
    }
  }

  /** The hosted model's candidates (unfiltered), or null when it failed or was too slow (the search goes on without). */
  private async hostedCandidates(text: string): Promise<Candidates | null> {
    if (!this.rankers.hosted) return null;
    try {
      const hits = await this.rankers.hosted.rankScored(text, FUSION_DEPTH * 3);
      return hits.length ? { hits, strong: new Set(hits.slice(0, 10).map((h) => h.id)) } : null;
    } catch (e) {
      this.logger?.warn(`semantic search skipped: ${(e as Error).message}`);
      return null;
    }
  }

  /** Each candidate list restricted to published courses passing the filters (in memory, or one statement for all lists). */
  private async applyFilters(lists: Array<Candidates | null>, filters: SearchFilters): Promise<Hit[][]> {
    const all = [...new Set(lists.flatMap((l) => (l?.hits ?? []).map((h) => h.id)))];
    if (!all.length) return lists.map(() => []);
    const allowed = this.facts?.filter(all, filters) ?? (await this.lexical.filterIds(all, filters));
    return lists.map((l) => (l?.hits ?? []).filter((h) => allowed.has(h.id)).slice(0, FUSION_DEPTH));
  }

  /** Filters out of the words, organisation resolved, misspellings corrected, the rest grouped into concepts. */
  async understand(query: string) {
    const extracted = extractFilters(query, this.lexicon);
    const filters: SearchFilters = extracted.filters;
    let rest = extracted.rest;
    const phrases = extracted.organisationCandidates.map((c) => c.phrase);
    const organisation = phrases.length ? (this.facts?.resolveOrganisation(phrases) ?? (await this.lexical.resolveOrganisation(phrases))) : null;
    if (organisation) {
      filters.organisation = organisation.name;
      rest = extracted.organisationCandidates[organisation.index].rest;
    }
    const known = (w: string) => this.lexicon.stopwords.has(w) || this.lexicon.knownWords.has(w) || Boolean(this.rankers.embedded?.isKnownWord(w));
    // Each word read from two typed apart → the two words as typed.
    const joins = new Map<string, string>();
    rest = this.joinSplitWords(rest, known, joins);
    const raw = words(rest).filter((w) => !known(w));
    // A query of more than a few content words is a question written as prose; the others are keywords.
    const prose = words(rest).filter((w) => !this.lexicon.stopwords.has(w)).length > MAX_SUBJECT_CONCEPTS;
    const candidates = await this.lexical.correctionCandidates(raw);
    if (prose) await this.keepProseWords(candidates);
    const corrections = await this.chooseCorrections(candidates, words(rest));
    // Corrections to words few courses name (outside their descriptions), the rarest first (a split's words together).
    const rareFixes = [...corrections]
      .map(([w, fix]) => ({ fix, courses: candidates.get(w)?.find((c) => c.fix === fix)?.courses ?? Infinity }))
      .filter((c) => c.courses <= RARE_CORRECTION_COURSES)
      .sort((a, b) => a.courses - b.courses)
      .flatMap((c) => c.fix.split(' '));
    for (const [word, fix] of await this.realWordCorrections(words(rest), corrections, namesIn(query))) corrections.set(word, fix);
    // A misspelt word of a few keywords for which the catalogue's vocabulary has no candidate at all ("jsutcie", "etihc":
    // two slips in a short word, too far by trigrams) stands for the title word closest to it, if one is a slip or two
    // away; a word with a word vector is English ("nicer", "verses": the spelling statement skips common words) and
    // stays as typed.
    // A short query's misspelt word left as typed (candidates, none chosen: "oceanegraphy" → ocean, which the context
    // rejects) is asked about in the same statement: with no word vector either, it is a misspelling still.
    let uncorrected = false;
    if (this.facts && !prose) {
      const left = raw.filter((w) => !corrections.has(w) && correctable(w));
      const pending = left.filter((w) => !candidates.get(w)?.length);
      const english = left.length && this.rankers.embedded ? await this.rankers.embedded.wordVectors(left) : new Map();
      for (const w of pending) {
        const fix = english.has(w) ? null : this.facts.closestTitleWord(w);
        if (fix) corrections.set(w, fix);
      }
      // Without word vectors, English and misspellings cannot be told apart: nothing is counted as misspelt.
      uncorrected = Boolean(this.rankers.embedded) && leftMisspelt(left, corrections, english);
    }
    // A word joined from two is a correction (of the space typed between them): its concept is compared with titles and
    // ranked as corrected, as said ("classroom", not its synonym group's first phrase).
    for (const j of joins.keys()) if (!corrections.has(j)) corrections.set(j, j);
    // A correction may be two words (a space typed out): each is a token, and remembers the word typed.
    const tokens: string[] = [];
    const typed: string[] = [];
    for (const w of words(rest)) {
      for (const t of (corrections.get(w) ?? w).split(' ')) {
        tokens.push(t);
        typed.push(w);
      }
    }
    const semanticText = tokens.join(' ');
    const mentions = categoryMentions(tokens, this.lexicon);
    const asked = this.categoryPhrases(tokens, mentions);
    // The sentence encoder's text is final once the words are corrected: when a statement is still to come, the
    // encoding starts now and runs beside it (search() asks for the same text and waits for this encoding).
    if (asked.length) this.encodeEarly(semanticText);
    const subjectAt = await this.categoryWordsOfSubjects(asked);
    for (const at of ordinaryCategoryWords(tokens, mentions, this.lexicon)) subjectAt.add(at);
    // A category name read from a corrected word is a guess: ranked, it still puts the category's courses first when
    // right, while as a filter it would hide every course outside it ("organic chemestry" left no course to rank). So is
    // one right after a corrected word: it ends the term the learner misspelt ("humna rigths law": human rights courses
    // are filed under Law and Social Sciences alike), and the phrase it makes with that word, which
    // categoryWordsOfSubjects looks for, is the guess's.
    for (const m of mentions) {
      if (typed.slice(m.at, m.at + m.words).some((w) => corrections.has(w))) subjectAt.add(m.at);
      else if (m.at > 0 && corrections.has(typed[m.at - 1])) subjectAt.add(m.at);
    }
    const concepts = buildConcepts(tokens, this.lexicon, filters, subjectAt).slice(0, MAX_CONCEPTS);
    const text = concepts.map((c) => c[0].join(' ')).join(' ');
    // The content words as typed, and those misspelt (corrected, or unknown and left as they were). Two words typed as
    // one ("timeseries") or a word run into its number ("covid19") are no slip of a title word: they stand for the
    // words of their correction.
    const asTyped = (w: string) => {
      const fix = corrections.get(w);
      return fix && (fix.includes(' ') || /\d/.test(w)) ? fix.split(' ') : [w];
    };
    const typedWords = words(rest)
      .flatMap(asTyped)
      .filter((w) => !this.lexicon.stopwords.has(w));
    const misspelt = [...new Set([...raw, ...corrections.keys()].flatMap(asTyped))];
    return { filters, text, concepts, corrections, joins, rareFixes, tokens, semanticText, typedWords, misspelt, uncorrected };
  }

  /**
   * Two neighbouring content words typed apart that a title uses as one word become that word ("class room",
   * "life style", "nano technolgy" → nanotechnology): read apart, each matches courses about something else (room,
   * style, technology), and no correction of either word alone finds the subject. A pair of known words is joined only
   * when a title uses the two together exactly; a pair holding an unknown word also when a title word is a slip or two
   * from it.
   */
  private joinSplitWords(rest: string, known: (w: string) => boolean, joins: Map<string, string>): string {
    const facts = this.facts;
    const typed = words(rest);
    if (!facts || typed.length < 2) return rest;
    // Halves of three letters or more ("geo"): a lone letter ("company's network") or a short stopword ("in", "to") is
    // no half of a word; a longer stopword may be ("class room").
    const content = (w: string | undefined) => w !== undefined && /^[a-z]{3,}$/.test(w) && (w.length >= 4 || !this.lexicon.stopwords.has(w));
    const out: string[] = [];
    let joinedAny = false;
    for (let i = 0; i < typed.length; i++) {
      const [a, b] = [typed[i], typed[i + 1]];
      const word = content(a) && content(b) ? facts.joinedTitleWord(a, b, !known(a) || !known(b)) : null;
      if (word) {
        out.push(word);
        joinedAny = true;
        joins.set(word, `${a} ${b}`);
        i++;
      } else out.push(a);
    }
    return joinedAny ? out.join(' ') : rest;
  }

  /** Starts the encoding of the query's text (kept in the encoder's cache for rank()), when the encoder will be asked. */
  private encodeEarly(semanticText: string): void {
    const encoder = this.rankers.encoder;
    if (!encoder?.ready || !semanticText.trim()) return;
    // A failure is rank()'s to report: the search asks for this encoding again.
    encoder.encodeQuery(semanticText).catch(() => undefined);
  }

  /** The phrases categoryWordsOfSubjects asks about: each category name with the content word before or after it. */
  private categoryPhrases(tokens: string[], mentions: CategoryMention[]): Array<{ phrase: string; category: string; at: number }> {
    const content = (i: number) => i >= 0 && i < tokens.length && !this.lexicon.stopwords.has(tokens[i]);
    const asked: Array<{ phrase: string; category: string; at: number }> = [];
    for (const m of mentions) {
      const name = tokens.slice(m.at, m.at + m.words).join(' ');
      if (content(m.at - 1)) asked.push({ phrase: `${tokens[m.at - 1]} ${name}`, category: m.category, at: m.at });
      if (content(m.at + m.words)) asked.push({ phrase: `${name} ${tokens[m.at + m.words]}`, category: m.category, at: m.at });
    }
    return asked;
  }

  /**
   * Positions of category names that belong to a subject the learner named rather than narrow the search: with a word
   * next to them that some course outside the category names together with them ("user experience design": UX
   * courses are filed under Design and Computer Science alike). Filtering on the category would hide those courses.
   */
  private async categoryWordsOfSubjects(asked: Array<{ phrase: string; category: string; at: number }>): Promise<Set<number>> {
    const found = await this.lexical.phrasesOutsideCategory(asked);
    return new Set(asked.filter((a) => found.has(a.phrase)).map((a) => a.at));
  }

  /**
   * Each unknown word's correction: the candidate the query's other words point to (the cosine of its word vector with
   * theirs: "entreprenership for startps" → startups, not starts), the first candidate (one edit away, most courses)
   * keeping a head start of SPELLING.firstBonus; a candidate too far by trigrams only when that context picks it.
   */
  private async chooseCorrections(candidates: Map<string, CorrectionCandidate[]>, queryWords: string[]): Promise<Map<string, string>> {
    const fixes = new Map<string, string>();
    if (!candidates.size) return fixes;
    const embedded = this.rankers.embedded;
    // The context of a word: the query's known words, and the other misspelt words' first candidates that are typing
    // slips (a distant key's word can be another subject: "moden" taken as model made "chian" a chain, not China).
    const known = queryWords.filter((w) => !candidates.has(w));
    const offered = [...candidates.values()].flat().map((c) => c.fix);
    const vectors: Map<string, WordVector> = embedded
      ? await embedded.wordVectors([...known, ...offered.flatMap((fix) => fix.split(' '))])
      : new Map<string, WordVector>();
    // Two words typed as one ("bigdata") stand for both: the mean of their vectors, when both have one.
    for (const fix of offered) {
      const parts = fix.split(' ').map((w) => vectors.get(w));
      if (parts.length < 2 || parts.some((v) => !v)) continue;
      const mean = new Float32Array(parts[0]!.v.length);
      for (const part of parts) for (let i = 0; i < mean.length; i++) mean[i] += part!.v[i] / parts.length;
      vectors.set(fix, { ...parts[0]!, v: mean });
    }
    const sumOf = (list: string[]) => {
      let sum: Float32Array | null = null;
      for (const w of list) {
        const v = vectors.get(w)?.v;
        if (!v) continue;
        sum ??= new Float32Array(v.length);
        for (let i = 0; i < v.length; i++) sum[i] += v[i];
      }
      return sum;
    };
    let around: Float32Array | null = null;
    const cosine = (fix: string) => {
      const v = vectors.get(fix)?.v;
      if (!v || !around) return undefined;
      let d = 0;
      let n = 0;
      for (let i = 0; i < v.length; i++) {
        d += v[i] * around[i];
        n += around[i] * around[i];
      }
      return n ? d / Math.sqrt(n) : undefined;
    };
    for (const [word, all] of candidates) {
      // A word no course uses finds nothing, whatever its fit ("stak" is a slip of stake and of stack; only stack's
      // courses answer "full stak web developmnt"): it is chosen only when no candidate is used.
      const slips = preferSlips(word, all);
      const used = slips.filter((c) => c.courses > 0);
      const list = used.length ? used : slips;
      around = sumOf([...known, ...[...candidates].filter(([w]) => w !== word).map(([w, c]) => firstPlausible(w, c).fix)]);
      const fits = list.map((c) => cosine(c.fix));
      // A candidate the vectors cannot place (a stopword of the search, like "learning") cannot be compared: the
      // order without context decides then.
      const comparable = list.every((c, i) => c.needsContext || fits[i] !== undefined);
      let best: string | undefined;
      let bestScore = -Infinity;
      list.forEach((c, i) => {
        const fit = fits[i];
        if (c.needsContext && (fit === undefined || fit < SPELLING.contextFloor)) return;
        const score = comparable ? fit! + (i === 0 ? SPELLING.firstBonus : 0) : -i;
        if (score > bestScore) [best, bestScore] = [c.fix, score];
      });
      if (best) fixes.set(word, best);
    }
    return fixes;
  }

  /**
   * A question of more than a few content words is written as prose, and a word common English knows (it has a word
   * vector) is one the learner meant, unless a slip of one key makes it a catalogue word ("programing"): taken for a
   * word further away, it turns the question into another ("a flood devastates a region" → states, "move believably"
   * → believe). Such a word keeps only its candidates that are typing slips of it, or none.
   */
  private async keepProseWords(candidates: Map<string, CorrectionCandidate[]>): Promise<void> {
    const embedded = this.rankers.embedded;
    if (!embedded || !candidates.size) return;
    const english = await embedded.wordVectors([...candidates.keys()]);
    for (const [word, list] of candidates) {
      if (!english.has(word)) continue;
      const slips = new Set(typingSlips(word));
      const kept = list.filter((c) => slips.has(c.fix));
      if (kept.length) candidates.set(word, kept);
      else candidates.delete(word);
    }
  }

  /**
   * Real words typed by mistake ("neuroscince of the brian"): a query word few courses use, one edit from a word many
   * use that fits the query's other words clearly better by their word vectors, becomes that word. A word alone, or one
   * the context does not speak against ("bash scripting"), stays as typed, unless common English does not know it
   * either: then it is a misspelling a course happens to share ("artifical").
   */
  private async realWordCorrections(queryWords: string[], fixes: Map<string, string>, names: ReadonlySet<string>): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const embedded = this.rankers.embedded;
    if (!embedded) return out;
    const fixed = queryWords.flatMap((w) => (fixes.get(w) ?? w).split(' '));
    const content = fixed.filter((w) => !embedded.isStopword(w));
    const suspects = [...new Set(content)]
      .filter(
        (w) => !fixes.has(w) && !names.has(w) && correctable(w) && !this.lexicon.knownWords.has(w) && embedded.catalogueFrequency(w) <= SPELLING.realWordRare,
      )
      .slice(0, MAX_REAL_WORD_SUSPECTS);
    const keywordLike = content.length <= MAX_SUBJECT_CONCEPTS;
    for (const word of suspects) {
      const own = embedded.catalogueFrequency(word);
      const { enough, unused } = realWordEvidence(own, keywordLike);
      const candidates = typingSlips(word)
        .filter((w) => !embedded.isStopword(w))
        .map((w) => ({ word: w, frequency: embedded.catalogueFrequency(w) }))
        .filter((c) => c.frequency >= enough);
      const context = content.filter((w) => w !== word);
      if (!candidates.length) continue;
      const vectors = await embedded.wordVectors([...context, word, ...candidates.map((c) => c.word)].slice(0, MAX_CONCEPTS));
      // A word a course uses that common English does not know ("artifical", misspelt in one course's description) is
      // a typo like an unknown word: the candidate many courses use that fits the query best, needing only to fit it
      // better. Words no course uses went through the spelling statement already, and stay as it left them.
      const rare = own > 0 && (vectors.get(word)?.rank ?? Infinity) > COMMON_WORD_RANK;
      if (!context.length) {
        if (rare) out.set(word, candidates.reduce((a, b) => (b.frequency > a.frequency ? b : a)).word);
        continue;
      }
      const fit = contextFit(
        context.map((w) => vectors.get(w)?.v),
        (w) => vectors.get(w)?.v,
      );
      const ownFit = fit(word) ?? 0;
      let best: string | undefined;
      let bestFit = -Infinity;
      for (const c of candidates) {
        const f = fit(c.word);
        if (f !== undefined && f > bestFit) [best, bestFit] = [c.word, f];
      }
      if (best && (rare || unused ? bestFit > ownFit : bestFit >= SPELLING.realWordFloor && bestFit - ownFit >= SPELLING.realWordMargin)) out.set(word, best);
    }
    return out;
  }

  private async hydrate(hits: RankedHit[]): Promise<SearchResultDto[]> {
    if (!hits.length) return [];
    const items = await this.courses.publishedListItems(
      hits.map((h) => h.id),
      this.db,
    );
    return hits.flatMap((h) => {
      const item = items.get(h.id);
      if (!item) return [];
      return [{ ...item, score: Math.round(h.score * 10_000) / 10_000 }];
    });
  }
}

/**
 * How many courses a real word's candidate must be used by, and whether it must fit the query clearly better than the
 * word typed. A word no course uses, in a query short enough to be keywords, finds nothing as typed: a candidate a few
 * courses use that fits the other words better is the better guess ("clinical trails" → trials, 6 courses; "r
 * programing" → programming, where the misspelling's own vector sits close to the word's). In a question, words no
 * course uses are ordinary English ("tap", "toilet"), and the stricter rule stays.
 */
export function realWordEvidence(own: number, keywordLike: boolean): { enough: number; unused: boolean } {
  if (own === 0 && keywordLike) return { enough: SPELLING.realWordUnusedMinCourses, unused: true };
  return { enough: Math.max(SPELLING.realWordMinCourses, SPELLING.realWordRatio * Math.max(1, own)), unused: false };
}

/**
 * The concept naming the subject of a short query: the one courses most often name outside their description
 * (LexicalSearch.subjectScores: "tableau" in "tableau dashboards", "sustainability" in "sustainability reporting",
 * "calculus" in "calculus for engineers"), or none when no course names any outside its description. Only concepts
 * holding a corrected word compete when any of them is named so: the learner typed the query for the word they
 * misspelt, and a word typed right beside it is more often what is said about that subject ("cryptograpy and netwrok
 * security" is about cryptography, though "security" is in more titles). Unless a concept typed right scores
 * SUBJECT_OVER_CORRECTED times the corrected ones or more: then the correction is a word of every subject.
 */
export function subjectOf(concepts: Concept[], scores: number[], corrected: boolean[]): Concept | undefined {
  const ofCorrected = scores.map((s, i) => (corrected[i] ? s : 0));
  const top = Math.max(...ofCorrected);
  const among = top > 0 && Math.max(...scores) <= SUBJECT_OVER_CORRECTED * top ? ofCorrected : scores;
  const best = Math.max(...among);
  return best > 0 ? concepts[among.indexOf(best)] : undefined;
}

/**
 * The text a short query's subject's courses are ordered by (their titles' trigram similarity to it): the subject and
 * the other concepts that narrow, each by its first phrase; a concept in more heads than are counted (score 0) narrows
 * nothing and is left out, and so is one scoring under SUBJECT_TITLE_SHARE of the subject. "stem cels resaerch" → the courses naming cells with "The Science of Stem Cells" first, not
 * "Cell Biology"; "sign langauge sciance" → the sign-language courses first among those naming language, while "sciense
 * of hapiness" compares titles with "happiness" alone.
 */
export function subjectTitleText(concepts: Concept[], subject: Concept, scores: number[]): string {
  return concepts
    .filter((c, i) => c === subject || scores[i] > SUBJECT_TITLE_SHARE * scores[concepts.indexOf(subject)])
    .map((c) => c[0].join(' '))
    .join(' ');
}

/** The phrase of a concept the query's words make (the one said), if any. */
function saidPhrase(concept: Concept, tokens: string[]): string[] | undefined {
  const line = ` ${tokens.join(' ')} `;
  return concept.find((alt) => line.includes(` ${alt.join(' ')} `));
}

/**
 * The concepts with the phrase the corrected words make first, for telling and ranking the subject: a correction is
 * what the learner typed the query for, while a synonym group's first phrase is a word they did not type and can be
 * another subject's ("excercise sceince" → exercise, in the group led by "fitness"; "htlm" → html, in the web-development
 * group). Other concepts keep their first phrase: a synonym group's other phrases can be common words of another
 * subject ("derivatives" in the calculus group).
 */
export function saidFirst(concepts: Concept[], tokens: string[], corrected: boolean[]): Concept[] {
  return concepts.map((c, i) => {
    const said = corrected[i] ? saidPhrase(c, tokens) : undefined;
    return said && said !== c[0] ? [said, ...c.filter((alt) => alt !== said)] : c;
  });
}

/**
 * Which concepts hold a corrected word: the phrase the query's words make has a corrected one (a synonym group's other
 * phrases may share a word with the query by chance: "network security" beside "netwrok").
 */
export function correctedConcepts(concepts: Concept[], tokens: string[], corrections: Map<string, string>): boolean[] {
  const fixed = new Set([...corrections.values()].flatMap((fix) => fix.split(' ')));
  return concepts.map((c) => Boolean(saidPhrase(c, tokens)?.some((w) => fixed.has(w))));
}

/**
 * The text titles are compared with by trigrams: each concept's first phrase, except that a concept holding a corrected
 * word keeps the phrase the corrected words make. A correction is a word of the catalogue chosen to match what was
 * typed, and the group's first phrase can be another word the learner did not type ("financal acounting" → "financial
 * accounting", whose courses are titled so, not "finance accounting"; "androd" → "android", not "mobile apps").
 */
export function similarityText(concepts: Concept[], tokens: string[], corrected: boolean[]): string {
  return concepts.map((c, i) => ((corrected[i] && saidPhrase(c, tokens)) || c[0]).join(' ')).join(' ');
}

/** The cosine of a word's vector with the sum of the context's vectors (undefined when either is unknown). */
function contextFit(context: Array<Float32Array | undefined>, vectorOf: (w: string) => Float32Array | undefined): (w: string) => number | undefined {
  let around: Float32Array | null = null;
  for (const v of context) {
    if (!v) continue;
    around ??= new Float32Array(v.length);
    for (let i = 0; i < v.length; i++) around[i] += v[i];
  }
  let norm = 0;
  if (around) for (const x of around) norm += x * x;
  return (w) => {
    const v = vectorOf(w);
    if (!v || !around || !norm) return undefined;
    let d = 0;
    for (let i = 0; i < v.length; i++) d += v[i] * around[i];
    return d / Math.sqrt(norm);
  };
}

function interpreted(filters: SearchFilters, text: string, corrections: Map<string, string>, joins: Map<string, string>): InterpretedDto {
  const out: InterpretedDto = { text };
  if (filters.level) out.level = filters.level;
  if (filters.category) out.category = filters.category;
  if (filters.maxCreditCost !== undefined) out.max_credit_cost = filters.maxCreditCost;
  if (filters.maxDurationHours !== undefined) out.max_duration_hours = filters.maxDurationHours;
  if (filters.organisation) out.organisation = filters.organisation;
  // A word read from two typed apart is shown under the two words as typed ("class room" → classroom).
  if (corrections.size) out.corrections = Object.fromEntries([...corrections].map(([word, fix]) => [joins.get(word) ?? word, fix]));
  // Keep the documented key order: filters first, then the ranked text.
  const { text: ranked, ...rest } = out;
  return { ...rest, text: ranked };
}
