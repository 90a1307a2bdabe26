import { DataSource } from 'typeorm';
import { Concept, SearchFilters, toTsQuery } from './query-parser';
import { correctable, edits1 } from './spelling';

export interface RankedHit {
  id: number;
  score: number;
}

export interface RankedPage {
  hits: RankedHit[];
  total: number;
}

// Weights of D, C, B, A (description is C, its weight then matters little next to title and topics).
const WEIGHTS = '{0.05, 0.2, 0.45, 1.0}';
// Below this trigram similarity a word is not taken for a misspelling of another.
const MIN_TRIGRAM_SIMILARITY = 0.45;
const RERANK_DEPTH = 100;

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Lexical ranking, typo correction and filter resolution, all in PostgreSQL (weighted tsvector, GIN and pg_trgm indexes). */
export class LexicalSearch {
  constructor(private readonly db: DataSource) {}

  /** Maps each unknown word to the closest catalogue word: one edit away first, then by trigram similarity; the more common word wins a tie. */
  async corrections(tokens: string[]): Promise<Map<string, string>> {
    const candidates = [...new Set(tokens.filter(correctable))];
    const fixes = new Map<string, string>();
    if (!candidates.length) return fixes;
    const known: Array<{ word: string }> = await this.db.query(`SELECT word FROM search_vocabulary WHERE word = ANY($1)`, [candidates]);
    const knownSet = new Set(known.map((k) => k.word));
    for (const word of candidates.filter((w) => !knownSet.has(w))) {
      const best = await this.closestWord(word);
      if (best) fixes.set(word, best);
    }
    return fixes;
  }

  private async closestWord(word: string): Promise<string | null> {
    let rows: Array<{ word: string }> = await this.db.query(`SELECT word FROM search_vocabulary WHERE word = ANY($1::varchar[])`, [edits1(word)]);
    if (!rows.length) {
      rows = await this.db.query(
        // lower(word): the trigram index is on that expression, so that equality look-ups above keep the primary key.
        `SELECT word FROM search_vocabulary WHERE lower(word) % $1 AND similarity(lower(word), $1) >= $2 ORDER BY similarity(lower(word), $1) DESC, word LIMIT 5`,
        [word, MIN_TRIGRAM_SIMILARITY],
      );
    }
    if (rows.length <= 1) return rows[0]?.word ?? null;
    // Several words as close: the one more courses use (counted up to a cap, on the small head vectors).
    const counted: Array<{ word: string }> = await this.db.query(
      `SELECT w.word FROM unnest($1::text[]) AS w(word)
        ORDER BY (SELECT count(*) FROM (SELECT 1 FROM search_heads h WHERE h.head @@ plainto_tsquery('english', w.word) LIMIT 200) x) DESC,
                 similarity(w.word, $2) DESC, w.word
        LIMIT 1`,
      [rows.map((r) => r.word), word],
    );
    return counted[0].word;
  }

  /** The first candidate phrase naming an organisation (most courses first) or a tutor of a published course. */
  async resolveOrganisation(phrases: string[]): Promise<{ index: number; name: string } | null> {
    if (!phrases.length) return null;
    const rows: Array<{ i: number; name: string | null }> = await this.db.query(
      `SELECT p.i::int AS i,
              coalesce(
                (SELECT h.organisation FROM search_heads h WHERE h.published AND lower(h.organisation) ~ p.re GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1),
                (SELECT t.name FROM tutors t WHERE lower(t.name) ~ p.re AND EXISTS (SELECT 1 FROM courses c WHERE c.tutor_id = t.id AND c.published) LIMIT 1)
              ) AS name
         FROM unnest($1::text[]) WITH ORDINALITY AS p(re, i)
        ORDER BY p.i`,
      [phrases.map((p) => `\\m${p.toLowerCase().split(' ').map(escapeRegex).join('\\s+')}\\M`)],
    );
    const hit = rows.find((r) => r.name);
    return hit ? { index: hit.i - 1, name: hit.name! } : null;
  }

  /** Published courses matching the filters and any concept, best first: weighted rank, all-concepts bonus, title trigram, popularity. */
  async rank(concepts: Concept[], text: string, filters: SearchFilters, limit: number): Promise<RankedPage> {
    const params: unknown[] = [];
    const where = filterSql(filters, params);
    if (!concepts.length) {
      params.push(limit);
      const rows = await this.db.query(
        `SELECT c.id, 0 AS score, count(*) OVER () AS total FROM search_heads h JOIN courses c ON c.id = h.course_id
          WHERE ${where} ORDER BY c.enrolled DESC, c.rating DESC, c.id LIMIT $${params.length}`,
        params,
      );
      return page(rows);
    }
    params.push(toTsQuery(concepts, '|'), toTsQuery(concepts, '&'), text, limit);
    const query = (sql: string, values = params) => this.db.query(sql, values);
    // Courses naming every concept in title, category, topics, tutor or organisation rank first anyway (the all-concepts
    // bonus): when there are enough of them, only they are scored and the other matches are just counted. Queries
    // that do not depend on each other run side by side on two connections (the count costs about what the ranking does).
    let head: RankedPage;
    if (concepts.length > 1) {
      const [allRows, [{ total }]] = await Promise.all([
        query(rankSql('head', 'all_q', where, params.length)),
        query(countSql(where, params.length), params.slice(0, -3)),
      ]);
      const all = page(allRows);
      if (all.hits.length >= limit) return { hits: all.hits, total: Number(total) };
      // A course naming every concept, one of them only in its description, still beats one naming just some.
      const [anywhereRows, headRows] = await Promise.all([
        query(rankSql('document', 'all_q', where, params.length)),
        query(rankSql('head', 'any_q', where, params.length)),
      ]);
      const allAnywhere = page(anywhereRows);
      head = page(headRows);
      if (allAnywhere.hits.length) return mergeRanked(allAnywhere, head, limit);
    } else {
      // Any concept in those fields (small vectors, fast); the description only when they give too few.
      head = page(await query(rankSql('head', 'any_q', where, params.length)));
    }
    if (head.hits.length >= limit) return head;
    const full = page(await query(rankSql('document', 'any_q', where, params.length)));
    if (full.hits.length) return full;
    return this.rankByTitleSimilarity(text, filters, limit);
  }

  /** Nothing matched word for word: titles that look like the text (pg_trgm), e.g. a misspelt word we could not correct. */
  private async rankByTitleSimilarity(text: string, filters: SearchFilters, limit: number): Promise<RankedPage> {
    const params: unknown[] = [];
    const where = filterSql(filters, params);
    params.push(text, limit);
    const n = params.length;
    const rows = await this.db.query(
      `SELECT c.id, word_similarity($${n - 1}, lower(c.title)) AS score, count(*) OVER () AS total
         FROM courses c JOIN search_heads h ON h.course_id = c.id
        WHERE $${n - 1} <% lower(c.title) AND c.published AND ${where} -- c.published: the trigram index is partial
        ORDER BY score DESC, c.enrolled DESC, c.id LIMIT $${n}`,
      params,
    );
    return page(rows);
  }

  /** Which of these courses are published and pass the filters (for semantic candidates). */
  async filterIds(ids: number[], filters: SearchFilters): Promise<Set<number>> {
    const params: unknown[] = [ids];
    const where = filterSql(filters, params);
    const rows: Array<{ id: number }> = await this.db.query(
      `SELECT h.course_id AS id FROM search_heads h WHERE h.course_id = ANY($1) AND ${where}`,
      params,
    );
    return new Set(rows.map((r) => r.id));
  }
}

/**
 * Ranking over one vector column, on the narrow search_heads (facts filter and weigh the matches; the full
 * document, description included, is joined only for the recall fallback); the head rank orders both, so
 * description-only matches come after, by popularity. Only the best RERANK_DEPTH meet the courses table, for the
 * title trigram similarity (~10 µs a row) that re-orders them.
 */
function rankSql(column: 'head' | 'document', match: 'any_q' | 'all_q', where: string, n: number): string {
  return `WITH q AS (SELECT to_tsquery('english', $${n - 3}) AS any_q, to_tsquery('english', $${n - 2}) AS all_q),
     ranked AS (
       SELECT h.course_id AS id,
              ts_rank('${WEIGHTS}', h.head, q.any_q)
                + CASE WHEN h.head @@ q.all_q THEN 0.5 ELSE 0 END
                + 0.02 * h.popularity AS base,
              count(*) OVER () AS total
         FROM search_heads h CROSS JOIN q
         ${column === 'document' ? 'JOIN search_documents d ON d.course_id = h.course_id' : ''}
        WHERE ${column === 'document' ? 'd.document' : 'h.head'} @@ q.${match} AND ${where}
        ORDER BY base DESC, h.course_id
        LIMIT GREATEST(${RERANK_DEPTH}, $${n}))
     SELECT r.id, r.base + 0.3 * word_similarity($${n - 1}, lower(c.title)) AS score, r.total
       FROM ranked r JOIN courses c ON c.id = r.id ORDER BY score DESC, r.id LIMIT $${n}`;
}

/** How many published courses pass the filters and name any concept outside their description. */
function countSql(where: string, n: number): string {
  return `SELECT count(*) AS total FROM search_heads h WHERE h.head @@ to_tsquery('english', $${n - 3}) AND ${where}`;
}

/** SQL conditions on h = search_heads (its copy of the course facts) for published courses passing the filters; pushes its parameters. */
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

function page(rows: Array<{ id: number; score: string | number; total: string | number }>): RankedPage {
  return { hits: rows.map((r) => ({ id: r.id, score: Number(r.score) })), total: rows.length ? Number(rows[0].total) : 0 };
}
