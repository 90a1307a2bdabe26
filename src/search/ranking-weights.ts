/** The fields of a course the expanded BM25F scores. */
export type Bm25Field = 'title' | 'category' | 'topics' | 'description';

/**
 * What a course's sentence vector may be made of; ENCODER.texts picks one or several (summed into one vector):
 * "title. lead of the description", the title, "title. topics", "title. the description after the lead" (more) and
 * the lead's sentences each a text (their weight shared out between them).
 */
export type EncodedText = 'lead' | 'title' | 'topics' | 'more' | 'sentences';

// Every constant that decides how search ranks courses, in one place. Each was chosen with `npm run search:eval --
// --tuning` (the tuning sets only; data/README.md has the figures); the eval can override them through SEARCH_EVAL_*.

/**
 * Weight of each ranking in the fusion. When some course names every concept of the query in its title, topics,
 * category, tutor or organisation (keywords, corrected typos, names), the lexical ranking counts fully and the rankings
 * are fused by weighted reciprocal rank (the *WhenLexicalStrong weights, chosen on the tuning half). A question in the
 * learner's own words rarely does: then the rankings' standard scores are summed with the other weights (chosen on the
 * tuning sets, data/README.md: encoder twice the word-vector engine, the lexical ranking a tenth of it; the hosted
 * model's weight was not tuned, no hosted model being at hand).
 */
export const FUSION = {
  lexicalStrong: 1,
  lexicalWeak: 0.1,
  embedded: 1,
  embeddedWhenLexicalStrong: 0.1,
  hosted: 1,
  hostedWhenLexicalStrong: 1,
  encoder: 2,
  encoderWhenLexicalStrong: 0.1,
  /**
   * When the lexical ranking leads a query with a filter said in words (level, price, duration, category or
   * organisation) and no corrected word, a course it scores more than this fraction below the one before it is not
   * lifted above that one by the other rankings (rank-fusion.ts, lexicalLedFusion): the filter has already narrowed
   * the courses to a few, and there a title naming the subject should not lose to a topic naming it ("short course on
   * writing": Grant Writing below a poetry workshop). 0.1–0.3 gave the same tuning figures.
   */
  lexicalGap: 0.2,
};

/**
 * The titles ranked by a short corrected query's words as typed (fuzzy-titles.ts), beside the lexical ranking that
 * depends on the one correction chosen per misspelt word: its weight in the lexical-led fusion, and how many titles a
 * misspelt word finds at most (what bounds its cost on a large catalogue).
 */
export const FUZZY_TITLES = { weight: 0.2, maxTitlesPerWord: 300 };

/** BM25F (Robertson and Zaragoza): each field's term frequency, length-normalised by its own `b`, weighed and summed. */
export const BM25F = {
  fields: { title: { weight: 3, b: 0.5 }, category: { weight: 1, b: 0 }, topics: { weight: 1.5, b: 0.5 }, description: { weight: 1, b: 0.75 } } as Record<
    Bm25Field,
    { weight: number; b: number }
  >,
  k1: 1.2,
};

export interface ExpansionOptions {
  /** Catalogue words a query word stands for at most (itself included when the catalogue uses it). */
  neighbours: number;
  /** Cosine below which a catalogue word is no expansion of a query word. */
  floor: number;
  /** Exponent on the cosine: how much less a related word counts than the word itself. */
  sharpness: number;
  /** Query words expanded at most (those weighing most). */
  maxWords: number;
}

export const EXPANSION: ExpansionOptions = { neighbours: 10, floor: 0.6, sharpness: 2, maxWords: 8 };

/**
 * How the signals combine (chosen on the tuning half of the judged queries): a course's score is EXPANDED × its
 * expanded-BM25F score (scaled to the best course's) + (1 − EXPANDED) × its cosine to the query vector after
 * pseudo-relevance feedback from the first pass's best FEEDBACK_DOCS courses (moved towards them by FEEDBACK_WEIGHT).
 * The expanded-BM25F side gets term feedback from the same courses too: their FEEDBACK_TERMS heaviest words (RM3),
 * scored by BM25F and mixed in by TERM_WEIGHT (round 3, chosen on the tuning half: 5–40 words and weights 0.3–0.7 all
 * helped; 10 and 0.5 sit in the middle).
 */
export const BLEND = { expanded: 0.5, floor: 0.2, feedbackDocs: 5, feedbackWeight: 0.5, feedbackTerms: 10, termWeight: 0.5 };

/**
 * The sentence encoder (Universal Sentence Encoder lite): which texts of a course are encoded (their vectors summed
 * into the course's one vector), how long each may be, the pseudo-relevance feedback of its ranking (the query moved
 * towards its feedbackDocs nearest courses' mean by feedbackWeight), the cosine from which a course enters the fusion,
 * and the one (to the query as typed, before feedback) from which it counts as a match when deciding whether filters
 * said in words must be relaxed. Texts and
 * feedback were chosen on the tuning sets (data/README.md): "title. first sentences" and the title together beat either
 * alone and "title. topics", and feedback from 3–10 courses with weights 0.5–1 helped at almost every setting tried.
 * `weights` weighs a kind's text in the sum (1 unless told); a longer lead, the text after it, the lead's sentences and
 * other weights each cost some keyword or typo query on the tuning sets (data/README.md, round 20).
 */
export const ENCODER: {
  texts: EncodedText[];
  weights: Partial<Record<EncodedText, number>>;
  maxChars: number;
  feedbackDocs: number;
  feedbackWeight: number;
  floor: number;
  strong: number;
} = {
  texts: ['lead', 'title'],
  weights: {},
  maxChars: 400,
  feedbackDocs: 5,
  feedbackWeight: 1,
  floor: 0.1,
  strong: 0.5,
};

/**
 * Choosing a misspelt word's correction by the query's other words: how much head start the candidate preferred
 * without context (one edit away, used by most courses) keeps, and the cosine to the context a candidate too far by
 * trigrams needs.
 */
export const SPELLING = {
  firstBonus: 0.1,
  contextFloor: 0.35,
  /**
   * A real word typed by mistake: the word is used by at most `realWordRare` courses, the candidate one typing slip
   * away (spelling.ts) by at least `realWordMinCourses` and `realWordRatio` times as many, and the candidate's cosine
   * to the query's other words is at least `realWordFloor` and `realWordMargin` above the word's own (chosen on the
   * tuning typos: "neuroscince of the brian" → brain, while "bash scripting" and "over", "them" stay as typed). A word
   * no course uses, in a query of a few content words, needs a candidate used by `realWordUnusedMinCourses` courses
   * and fitting the other words better, by any margin ("clincal trails desgin" → trials).
   */
  realWordRare: 2,
  realWordMinCourses: 10,
  realWordRatio: 10,
  realWordFloor: 0.3,
  realWordMargin: 0.2,
  realWordUnusedMinCourses: 3,
};
