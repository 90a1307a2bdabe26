import { prepared, Queryable, sql, Statement } from '../common/database';
import { Concept, SearchFilters, toTsQuery } from './query-parser';
import { searchVersion } from './search.store';
import { correctable } from './spelling';

export interface RankedHit {
  id: number;
  score: number;
}

/** A catalogue word an unknown word may be a misspelling of, in order of preference without context. */
export interface CorrectionCandidate {
  fix: string;
  oneEdit: boolean;
  sim: number;
  /** Too far by trigrams to be taken without the query's context pointing to it. */
  needsContext: boolean;
  /** Courses naming it outside their description, counted up to COUNT_CAP. */
  courses: number;
}

export interface RankedPage {
  hits: RankedHit[];
  total: number;
  /** Some course names every concept in its title, category, topics, tutor or organisation: the words are strong evidence. */
  allConcepts?: boolean;
  /** The courses naming every concept outside their description, when some do but fewer than the caller shows. */
  allIds?: number[];
}

// Weights of D, C, B, A (description is C, its weight then matters little next to title and topics).
const WEIGHTS = '{0.05, 0.2, 0.45, 1.0}';
// Below this trigram similarity a word is not taken for a misspelling of another, unless the query's other words
// point to it (two edits inside a long word, "structers" → structures at 0.4, fall below it); never below the second.
const MIN_TRIGRAM_SIMILARITY = 0.45;
const CONTEXT_TRIGRAM_SIMILARITY = 0.35;
const RERANK_DEPTH = 100;
/** Unknown words of one query that get a spelling correction; the others are ranked as they are. */
export const MAX_CORRECTED_WORDS = 4;
// A word among the most common English words (by the embedded engine's word vectors) is no misspelling even when
// no course uses it: "procrastination" (52,000th) stays as it is, "machin" (92,000th) becomes "machine".
export const COMMON_WORD_RANK = 80_000;
// Courses naming a correction candidate are counted up to this (the count orders the candidates).
const COUNT_CAP = 200;
// Words of one query checked against the vocabulary at all (a 500-character query has about 80).
const MAX_CHECKED_WORDS = 40;
// Courses counted at most per concept when telling a subject from a word said in passing (subjectScores).
const SUBJECT_CAP = 500;
// Titles are compared with the text by trigrams only for short texts: a long text is no misspelt title, and
// comparing hundreds of trigrams with every title is what made long nonsense queries slow.
const MAX_TITLE_SIMILARITY_CHARS = 60;

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A phrase's words, lower-cased and regex-escaped, as resolveOrganisation matches them (separated by any whitespace). */
const phraseWords = (phrase: string) => phrase.toLowerCase().split(' ').map(escapeRegex);
// PostgreSQL's \m and \M (the start and end of a word: word characters are letters, decimal digits and "_"; not "²"),
// in JavaScript.
const WORD_CHAR = String.raw`[\p{L}\p{Nd}_]`;

/** resolveOrganisation's PostgreSQL pattern for a phrase, as a JavaScript regular expression (for the names in memory). */
export function organisationPattern(phrase: string): RegExp {
  return new RegExp(`(?<!${WORD_CHAR})(?=${WORD_CHAR})${phraseWords(phrase).join(String.raw`\s+`)}(?<=${WORD_CHAR})(?!${WORD_CHAR})`, 'u');
}

/**
 * Lexical ranking, typo correction and filter resolution, all in PostgreSQL (weighted tsvector, GIN and pg_trgm indexes).
 * These statements are search's own (search_heads, search_documents, search_vocabulary), and some join the courses
 * feature's views of published courses and tutors on purpose: ordering by popularity, the title trigram index and the
 * tutor-name match happen in the same statement as the ranking, which is what keeps a search to a few round trips.
 */
export class LexicalSearch {
  constructor(private readonly db: Queryable) {}

  /**
   * Maps unknown words (neither in the catalogue nor common English; the first MAX_CORRECTED_WORDS of them) to the
   * closest catalogue word, in one statement: one
   * edit away first (delete, transpose, replace, insert: the edits are made in SQL), else two catalogue words typed
   * without the space between them ("bigdata" → "big data", as one fix holding a space), else by trigram similarity;
   * among candidates as close, the word more courses use wins.
   */
  async correctionCandidates(tokens: string[]): Promise<Map<string, CorrectionCandidate[]>> {
    const words = [...new Set(tokens.filter(correctable))].slice(0, MAX_CHECKED_WORDS);
    const byWord = new Map<string, CorrectionCandidate[]>();
    if (!words.length) return byWord;
    const rows = await sql<{ word: string; fix: string; one_edit: boolean; sim: number; courses: string }>(this.db, CORRECTIONS, [
      words,
      MAX_CORRECTED_WORDS,
      CONTEXT_TRIGRAM_SIMILARITY,
      COMMON_WORD_RANK,
      COUNT_CAP,
    ]);
    for (const r of rows) {
      // One edit away, or similar enough by trigrams; a less similar word only when the query's context picks it.
      const candidate = {
        fix: r.fix,
        oneEdit: r.one_edit,
        sim: Number(r.sim),
        needsContext: !r.one_edit && Number(r.sim) < MIN_TRIGRAM_SIMILARITY,
        courses: Number(r.courses),
      };
      byWord.set(r.word, [...(byWord.get(r.word) ?? []), candidate]);
    }
    return byWord;
  }

  /** The first candidate phrase naming an organisation (most courses first) or a tutor of a published course. */
  async resolveOrganisation(phrases: string[]): Promise<{ index: number; name: string } | null> {
    if (!phrases.length) return null;
    const rows = await sql<{ i: number; name: string | null }>(
      this.db,
      `SELECT p.i::int AS i,
              coalesce(
                (SELECT h.organisation FROM search_heads h WHERE h.published AND lower(h.organisation) ~ p.re GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1),
                (SELECT t.name FROM published_tutors t WHERE lower(t.name) ~ p.re LIMIT 1)
              ) AS name
         FROM unnest($1::text[]) WITH ORDINALITY AS p(re, i)
        ORDER BY p.i`,
      [phrases.map((p) => `\\m${phraseWords(p).join('\\s+')}\\M`)],
    );
    const hit = rows.find((r) => r.name);
    return hit ? { index: hit.i - 1, name: hit.name! } : null;
  }

  /**
   * The phrases (each a category name with a word next to it, "experience design") that some published course outside
   * their category names in its title, category, topics, tutor or organisation: a subject that crosses categories.
   */
  async phrasesOutsideCategory(phrases: Array<{ phrase: string; category: string }>): Promise<Set<string>> {
    if (!phrases.length) return new Set();
    const rows = await sql<{ phrase: string }>(
      this.db,
      `SELECT p.phrase FROM unnest($1::text[], $2::text[]) AS p(phrase, category)
        WHERE EXISTS (SELECT 1 FROM search_heads h
                       WHERE h.head @@ phraseto_tsquery('english', p.phrase) AND h.published AND h.category_key <> lower(p.category))`,
      [phrases.map((p) => p.phrase), phrases.map((p) => p.category)],
    );
    return new Set(rows.map((r) => r.phrase));
  }

  /**
   * For each concept, how much its first phrase names a subject rather than something said about one: the share of the
   * courses naming it that name it outside their description, times its rarity among those (log(SUBJECT_CAP / heads)),
   * each count capped at SUBJECT_CAP (two index look-ups per concept). "tableau" (6 of 7 courses), "sustainability" (40
   * of 93) and "calculus" (15 of 28) are what courses are about; "dashboards" (3 of 12), "reporting" (9 of 76),
   * "master" (8 of 115) are mostly said in passing, and "engineers" (131 of 244) is in too many titles to narrow them.
   */
  async subjectScores(concepts: Concept[]): Promise<number[]> {
    if (!concepts.length) return [];
    const rows = await sql<{ i: number; heads: string; docs: string }>(
      this.db,
      SUBJECT_COUNTS,
      // The first phrase only: a synonym group's others can be common words of another subject ("derivatives").
      [concepts.map((c) => toTsQuery([c.slice(0, 1)], '|')), SUBJECT_CAP],
    );
    const scores = concepts.map(() => 0);
    for (const r of rows) {
      const heads = Number(r.heads);
      scores[r.i - 1] = heads ? (heads / (Number(r.docs) + 1)) * Math.log(SUBJECT_CAP / heads) : 0;
    }
    return scores;
  }

  /** Published courses matching the filters and any concept, best first: weighted rank, all-concepts bonus, title trigram, popularity. */
  /**
   * `limit` is what the caller shows and decides which matches rank (e.g. when enough courses name every concept, only
   * they do); `depth` is how many are returned (more, for fusion with other rankings).
   */
  async rank(concepts: Concept[], text: string, filters: SearchFilters, limit: number, depth = limit): Promise<RankedPage> {
    const params: unknown[] = [];
    const where = filterSql(filters, params);
    if (!concepts.length) {
      params.push(depth);
      // The filters pick the courses first (through their indexes), then those are read by id: as a plain join the
      // planner walked all courses by popularity and probed each one's facts, since count(*) OVER () reads every
      // match whatever the LIMIT (at 20,000 courses, "courses from Harvard" took 280 ms instead of 3-20 ms).
      const rows = await sql<RankRow>(
        this.db,
        `SELECT c.id, 0 AS score, count(*) OVER () AS total FROM published_courses c
          WHERE c.id = ANY(ARRAY(SELECT h.course_id FROM search_heads h WHERE ${where}))
          ORDER BY c.enrolled DESC, c.rating DESC, c.id LIMIT $${params.length}`,
        params,
      );
      return page(rows);
    }
    params.push(toTsQuery(concepts, '|'), toTsQuery(concepts, '&'), text, depth);
    const query = (text: Statement) => sql<RankRow>(this.db, text, params);
    // Courses naming every concept in title, category, topics, tutor or organisation rank first anyway (the all-concepts
    // bonus): when there are enough of them, only they count. One pass over the heads ranks both those courses and
    // every course naming any concept, and counts the latter: a long question's words match thousands of heads, and
    // each pass over them (the count, then the ranking) cost as much as the other. The courses naming every concept
    // somewhere, description included, are ranked meanwhile on a second connection (an index look-up, as a rule
    // cheap), in case the first list is too short.
    let head: RankedPage;
    if (concepts.length > 1) {
      const [heads, anywhereRows] = await Promise.all([
        query(prepared(headsSql(where, params.length))),
        sql<RankRow>(this.db, unlessHeadsSuffice(rankSql('document', 'all_q', where, params.length), where, params.length), [...params, limit]),
      ]);
      const all = page(heads.filter((r) => r.all_list));
      head = page(heads.filter((r) => !r.all_list));
      const allConcepts = all.hits.length > 0;
      const allIds = all.hits.map((h) => h.id);
      if (all.hits.length >= limit) return { hits: all.hits, total: head.total, allConcepts, allIds };
      head.allIds = allIds;
      // A course naming every concept, one of them only in its description, still beats one naming just some.
      const allAnywhere = page(anywhereRows);
      if (allAnywhere.hits.length) return { ...mergeRanked(allAnywhere, head, depth), allConcepts, allIds };
    } else {
      // Any concept in those fields (small vectors, fast); the description only when they give too few.
      head = page(await query(prepared(rankSql('head', 'any_q', where, params.length, true))));
      head.allConcepts = head.hits.length > 0;
    }
    if (head.hits.length >= limit) return head;
    const full = page(await query(rankSql('document', 'any_q', where, params.length)));
    // The courses naming every concept outside their description still rank first: the words stay strong evidence.
    if (full.hits.length) return { ...full, allConcepts: head.allConcepts, allIds: head.allIds };
    return this.rankByTitleSimilarity(text, filters, depth);
  }

  /** Nothing matched word for word: titles that look like the text (pg_trgm), e.g. a misspelt word we could not correct. */
  private async rankByTitleSimilarity(text: string, filters: SearchFilters, limit: number): Promise<RankedPage> {
    if (text.length > MAX_TITLE_SIMILARITY_CHARS) return { hits: [], total: 0 };
    const params: unknown[] = [];
    const where = filterSql(filters, params);
    params.push(text, limit);
    const n = params.length;
    const rows = await sql<RankRow>(
      this.db,
      `SELECT c.id, word_similarity($${n - 1}, lower(c.title)) AS score, count(*) OVER () AS total
         FROM published_courses c JOIN search_heads h ON h.course_id = c.id
        WHERE $${n - 1} <% lower(c.title) AND ${where} -- published_courses: the trigram index is partial, on published titles
        ORDER BY score DESC, c.enrolled DESC, c.id LIMIT $${n}`,
      params,
    );
    return page(rows);
  }

  /** Which of these courses are published and pass the filters (for semantic candidates). */
  async filterIds(ids: number[], filters: SearchFilters): Promise<Set<number>> {
    const params: unknown[] = [ids];
    const where = filterSql(filters, params);
    const rows = await sql<{ id: number }>(this.db, `SELECT h.course_id AS id FROM search_heads h WHERE h.course_id = ANY($1) AND ${where}`, params);
    return new Set(rows.map((r) => r.id));
  }
}

/*
 * Prepared statements (parsed and planned once per connection): the corrections, the subject counts and the head
 * rankings, whose plans the parameters do not change (the head rankings hide their tsqueries from the planner
 * anyway). Parsing and planning them was a third of the corrections' CPU, which every misspelt query waits for before
 * anything else, and an eighth of the head rankings'. The head rankings' text varies with the filters said, a few
 * dozen texts at most. The descriptions' rankings and the filters-only list stay unprepared: their plans depend on
 * the values.
 */
const SUBJECT_COUNTS = prepared(`SELECT p.i::int AS i,
        (SELECT count(*) FROM (SELECT 1 FROM search_heads h WHERE h.head @@ to_tsquery('english', p.q) AND h.published LIMIT $2) x) AS heads,
        (SELECT count(*) FROM (SELECT 1 FROM search_documents d WHERE d.document @@ to_tsquery('english', p.q) LIMIT $2) x) AS docs
   FROM unnest($1::text[]) WITH ORDINALITY AS p(q, i)`);

const CORRECTIONS_SQL = `
  WITH unknown AS (
    SELECT w.word, w.i FROM unnest($1::text[]) WITH ORDINALITY AS w(word, i)
     WHERE NOT EXISTS (SELECT 1 FROM search_vocabulary v WHERE v.word = w.word)
       AND NOT EXISTS (SELECT 1 FROM search_word_vectors e WHERE e.word = w.word AND e.rank <= $4)
     ORDER BY w.i LIMIT $2
  ), letters AS (SELECT chr(c) AS l FROM generate_series(97, 122) c),
  edits AS (
    SELECT u.i, ARRAY(
      SELECT left(u.word, p) || substr(u.word, p + 2) FROM generate_series(0, length(u.word) - 1) p
      UNION ALL SELECT left(u.word, p) || substr(u.word, p + 2, 1) || substr(u.word, p + 1, 1) || substr(u.word, p + 3) FROM generate_series(0, length(u.word) - 2) p
      UNION ALL SELECT left(u.word, p) || l || substr(u.word, p + 2) FROM generate_series(0, length(u.word) - 1) p, letters
      UNION ALL SELECT left(u.word, p) || l || substr(u.word, p + 1) FROM generate_series(0, length(u.word)) p, letters
    )::varchar[] AS candidates FROM unknown u
  ), one_edit AS (
    -- Each word's few hundred edits as one array: looked up in the primary key. As rows, the planner took them for
    -- tens of thousands and hashed the whole vocabulary for every misspelt query instead.
    SELECT DISTINCT e.i, v.word FROM edits e JOIN search_vocabulary v ON v.word = ANY (e.candidates)
  ), halves AS (
    SELECT u.i, left(u.word, p) AS a, substr(u.word, p + 1) AS b FROM unknown u, generate_series(2, length(u.word) - 2) p
  ), known_halves AS (
    SELECT v.word FROM search_vocabulary v WHERE v.word = ANY (ARRAY(SELECT a FROM halves UNION SELECT b FROM halves)::varchar[])
  ), splits AS (
    -- Two words typed without the space ("bigdata", "powerbi"): both catalogue words (two-letter ones are not in the
    -- vocabulary), neither a stopword ("protecton" is no "protect on"), said together in some course's head.
    SELECT h.i, h.a || ' ' || h.b AS word FROM halves h
     WHERE (length(h.a) = 2 OR h.a IN (SELECT word FROM known_halves)) AND (length(h.b) = 2 OR h.b IN (SELECT word FROM known_halves))
       AND numnode(phraseto_tsquery('english', h.a || ' ' || h.b)) = 3
       AND EXISTS (SELECT 1 FROM search_heads s WHERE s.head @@ phraseto_tsquery('english', h.a || ' ' || h.b) AND s.published)
  ), similar_words AS (
    -- lower(word): the trigram index is on that expression, so that equality look-ups keep the primary key.
    SELECT u.i, s.word FROM unknown u CROSS JOIN LATERAL (
      SELECT v.word FROM search_vocabulary v
       WHERE lower(v.word) % u.word AND similarity(lower(v.word), u.word) >= $3
       ORDER BY similarity(lower(v.word), u.word) DESC, v.word LIMIT 5
    ) s
     WHERE NOT EXISTS (SELECT 1 FROM one_edit o WHERE o.i = u.i) AND NOT EXISTS (SELECT 1 FROM splits p WHERE p.i = u.i)
  ), candidates AS (
    SELECT *, true AS one_edit FROM one_edit UNION ALL SELECT *, true FROM splits UNION ALL SELECT *, false FROM similar_words
  )
  SELECT u.word, c.word AS fix, c.one_edit, similarity(c.word, u.word) AS sim,
         -- how many courses use it (the words in this order, for a split), counted up to a cap on the small head vectors
         (SELECT count(*) FROM (SELECT 1 FROM search_heads h WHERE h.head @@ phraseto_tsquery('english', c.word) LIMIT $5) x) AS courses
    FROM candidates c JOIN unknown u ON u.i = c.i
   ORDER BY c.i, courses DESC, sim DESC, c.word`;
const CORRECTIONS = prepared(CORRECTIONS_SQL);

// A course's score before the title similarity: the weighted rank of its head against any concept, the all-concepts
// bonus (`every`: whether its head names every concept) and its popularity.
const base = (every: string) => `ts_rank('${WEIGHTS}', h.head, q.any_q) + CASE WHEN ${every} THEN 0.5 ELSE 0 END + 0.02 * h.popularity`;
const BASE = base('h.head @@ q.all_q');

/**
 * The two tsqueries of a ranking statement, from its parameters $n-3 (any concept) and $n-2 (every concept).
 * `opaque` hides them from the planner (a materialized row instead of constants) so that the heads are read through
 * their GIN index: seeing a long question's tsquery, it estimates thousands of matches and scans every head instead,
 * testing the tsquery on each (at 20,000 courses twice the CPU of the index; the estimate leaves out that test's cost).
 * The descriptions' statements keep the constants: there the estimate picks the better plan.
 */
const tsQueries = (n: number, opaque = false) =>
  `q AS ${opaque ? 'MATERIALIZED ' : ''}(SELECT to_tsquery('english', $${n - 3}) AS any_q, to_tsquery('english', $${n - 2}) AS all_q)`;

/**
 * Ranking over one vector column, on the narrow search_heads (facts filter and weigh the matches; the full
 * document, description included, is joined only for the recall fallback); the head rank orders both, so
 * description-only matches come after, by popularity. Only the best RERANK_DEPTH meet the published courses, for the
 * title trigram similarity (~10 µs a row) that re-orders them. The matches are scored into a narrow row first: the
 * count over all of them would otherwise hold every match's head vector, which spilt to disk for a long question's
 * thousands of matches.
 */
function rankSql(column: 'head' | 'document', match: 'any_q' | 'all_q', where: string, n: number, oneConcept = false): string {
  // One concept's heads matching it name every concept: the test on each match would only say so again.
  const every = oneConcept && column === 'head' && match === 'any_q' ? base('true') : BASE;
  return `WITH ${tsQueries(n, column === 'head')},
     matches AS MATERIALIZED (
       SELECT h.course_id AS id, ${every} AS base
         FROM search_heads h CROSS JOIN q
         ${column === 'document' ? 'JOIN search_documents d ON d.course_id = h.course_id' : ''}
        WHERE ${column === 'document' ? 'd.document' : 'h.head'} @@ q.${match} AND ${where}),
     ranked AS (
       SELECT id, base, count(*) OVER () AS total FROM matches ORDER BY base DESC, id LIMIT GREATEST(${RERANK_DEPTH}, $${n}))
     SELECT r.id, r.base + 0.3 * word_similarity($${n - 1}, lower(c.title)) AS score, r.total
       FROM ranked r JOIN published_courses c ON c.id = r.id ORDER BY score DESC, r.id LIMIT $${n}`;
}

/**
 * rankSql's head rankings for every concept (rows with all_list) and for any concept, from one pass over the heads
 * naming any concept, each with the count of the latter as its total.
 */
function headsSql(where: string, n: number): string {
  const top = (filter: string) => `SELECT id, base FROM matches ${filter} ORDER BY base DESC, id LIMIT GREATEST(${RERANK_DEPTH}, $${n})`;
  return `WITH ${tsQueries(n, true)},
     -- The heads naming every concept, from the GIN index (an intersection of its lists): testing the tsquery on each
     -- of a long question's thousands of matches cost more (most of it the phrases' position checks).
     every AS MATERIALIZED (SELECT h.course_id AS id FROM search_heads h CROSS JOIN q WHERE h.head @@ q.all_q AND ${where}),
     matches AS MATERIALIZED (
       SELECT h.course_id AS id, ${base('e.id IS NOT NULL')} AS base, e.id IS NOT NULL AS all_match
         FROM search_heads h CROSS JOIN q LEFT JOIN every e ON e.id = h.course_id
        WHERE h.head @@ q.any_q AND ${where}),
     tops AS ((SELECT true AS all_list, * FROM (${top('WHERE all_match')}) a) UNION ALL (SELECT false, * FROM (${top('')}) b)),
     -- Materialized, so that a course on both lists is compared with the text once: inlined, the planner joined every
     -- row of the two lists to its course and computed the similarity per row (most courses naming every concept
     -- are also the best naming any, so that was twice the trigram work).
     similarity AS MATERIALIZED (
       SELECT c.id, word_similarity($${n - 1}, lower(c.title)) AS sim FROM published_courses c WHERE c.id IN (SELECT id FROM tops)),
     scored AS (
       SELECT t.all_list, t.id, t.base + 0.3 * s.sim AS score,
              row_number() OVER (PARTITION BY t.all_list ORDER BY t.base + 0.3 * s.sim DESC, t.id) AS n
         FROM tops t JOIN similarity s ON s.id = t.id)
     SELECT all_list, id, score, (SELECT count(*) FROM matches) AS total FROM scored WHERE n <= $${n} ORDER BY all_list, n`;
}

/**
 * A ranking statement that answers nothing when at least `limit` heads name every concept ($n + 1 is `limit`): then
 * rank() returns those heads and never reads the description ranking, which runs beside the head ranking only for
 * the queries where few heads do (long questions, as a rule). The test is an index look-up that stops at `limit`
 * heads; the description ranking it saves matched thousands of documents for a short query of common words. The
 * tsquery is hidden from the planner as in the head statements, so that it reads the index.
 */
function unlessHeadsSuffice(statement: string, where: string, n: number): string {
  return `SELECT r.* FROM (${statement}) r
           WHERE (SELECT count(*) FROM (
                    SELECT 1 FROM search_heads h CROSS JOIN (SELECT to_tsquery('english', $${n - 2}) AS all_q OFFSET 0) q
                     WHERE h.head @@ q.all_q AND ${where} LIMIT $${n + 1}) enough) < $${n + 1}
           ORDER BY r.score DESC, r.id`;
}

/** SQL conditions on h = search_heads (its copy of the course facts) for published courses passing the filters; pushes its parameters. */
/** What a search filters a published course on (search_heads' facts). */
export interface CourseFacts {
  id: number;
  level: string;
  category_key: string;
  credit_cost: number;
  duration_minutes: number;
  organisation: string | null;
  tutor_name: string;
}

const FACT_COLUMNS = 'level, category_key, credit_cost, duration_minutes, organisation, tutor_name';

// Published courses' facts read per statement: the driver parses a result in one turn of the event loop, 35–55 ms for
// all 20,000 courses' at once on a loaded machine.
const FACTS_PAGE = 2500;

/** The facts of every published course, in pages by course id. */
export async function publishedCourseFacts(db: Queryable): Promise<CourseFacts[]> {
  const out: CourseFacts[] = [];
  for (let after = 0; ;) {
    const page = await sql<CourseFacts>(
      db,
      `SELECT course_id AS id, ${FACT_COLUMNS} FROM search_heads WHERE published AND course_id > $1 ORDER BY course_id LIMIT $2`,
      [after, FACTS_PAGE],
    );
    for (const row of page) out.push(row);
    if (page.length < FACTS_PAGE) return out;
    after = page[page.length - 1].id;
  }
}

/** The title of every published course. */
export function publishedTitles(db: Queryable): Promise<Array<{ id: number; title: string }>> {
  return sql<{ id: number; title: string }>(db, `SELECT c.id, c.title FROM search_heads h JOIN published_courses c ON c.id = h.course_id WHERE h.published`);
}

/** Changes whenever a course is published, unpublished or a fact of a published one changes (a version kept by triggers). */
export function courseFactsStamp(db: Queryable): Promise<string> {
  return searchVersion(db, 'course_facts');
}

/** A name resolveOrganisation may answer, with PostgreSQL's lower() of it (what its pattern is matched against). */
export interface MatchableName {
  name: string;
  lower: string;
}

/**
 * The names resolveOrganisation looks through, in the order it prefers them: the organisations of published courses,
 * most courses first (ties by name, as its ORDER BY), and the tutors of published courses.
 */
export async function organisationNames(db: Queryable): Promise<{ organisations: MatchableName[]; tutors: MatchableName[] }> {
  const [organisations, tutors] = await Promise.all([
    sql<MatchableName>(
      db,
      `SELECT h.organisation AS name, lower(h.organisation) AS lower FROM search_heads h
        WHERE h.published AND h.organisation IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC, 1`,
    ),
    // resolveOrganisation takes any matching tutor (LIMIT 1 without an order): the first by id here.
    sql<MatchableName>(db, `SELECT t.name, lower(t.name) AS lower FROM published_tutors t ORDER BY t.id`),
  ]);
  return { organisations, tutors };
}

/** Whether a published course passes the filters: filterSql's conditions, in memory. */
export function passesFilters(c: CourseFacts, filters: SearchFilters): boolean {
  if (filters.level && c.level !== filters.level) return false;
  if (filters.category && c.category_key !== filters.category.toLowerCase()) return false;
  if (filters.maxCreditCost !== undefined && !(c.credit_cost <= filters.maxCreditCost)) return false;
  if (filters.maxDurationHours !== undefined && !(c.duration_minutes <= filters.maxDurationHours * 60)) return false;
  if (filters.organisation && c.organisation !== filters.organisation && c.tutor_name !== filters.organisation) return false;
  return true;
}

// passesFilters mirrors it: a condition added here is added there.
function filterSql(filters: SearchFilters, params: unknown[]): string {
  const where = ['h.published'];
  const add = (sql: (p: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  if (filters.level) add((p) => `h.level = ${p}`, filters.level);
  if (filters.category) add((p) => `h.category_key = lower(${p})`, filters.category);
  if (filters.maxCreditCost !== undefined) add((p) => `h.credit_cost <= ${p}`, filters.maxCreditCost);
  if (filters.maxDurationHours !== undefined) add((p) => `h.duration_minutes <= ${p} * 60`, filters.maxDurationHours);
  if (filters.organisation) add((p) => `(h.organisation = ${p} OR h.tutor_name = ${p})`, filters.organisation);
  return where.join(' AND ');
}

/** Better group first, then the rest without repeats; scores kept non-increasing so the order and the scores agree. */
function mergeRanked(first: RankedPage, rest: RankedPage, limit: number): RankedPage {
  const seen = new Set<number>();
  const hits: RankedHit[] = [];
  for (const hit of [...first.hits, ...rest.hits]) {
    if (seen.has(hit.id) || hits.length >= limit) continue;
    seen.add(hit.id);
    const cap = hits.length ? hits[hits.length - 1].score : Infinity;
    hits.push({ id: hit.id, score: Math.min(hit.score, cap) });
  }
  return { hits, total: Math.max(rest.total, first.total) };
}

/**
 * A ranked row: id int; score a double (a number), or the literal 0 (an int); total count(*) OVER (), a bigint the
 * driver answers as a string.
 */
interface RankRow {
  id: number;
  score: string | number;
  total: string | number;
  /** headsSql's rows: whether the row belongs to the ranking of courses naming every concept. */
  all_list?: boolean;
}

function page(rows: RankRow[]): RankedPage {
  return { hits: rows.map((r) => ({ id: r.id, score: Number(r.score) })), total: rows.length ? Number(rows[0].total) : 0 };
}
