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
        ORDER BY (SELECT count(*) FROM (SELECT 1 FROM search_documents d WHERE d.head @@ plainto_tsquery('english', w.word) LIMIT 200) x) DESC,
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
                (SELECT c.organisation FROM courses c WHERE c.published AND lower(c.organisation) ~ p.re GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1),
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
        `SELECT c.id, 0 AS score, count(*) OVER () AS total FROM courses c JOIN tutors t ON t.id = c.tutor_id
          WHERE ${where} ORDER BY c.enrolled DESC, c.rating DESC, c.id LIMIT $${params.length}`,
        params,
      );
      return page(rows);
    }
    params.push(toTsQuery(concepts, '|'), toTsQuery(concepts, '&'), text, limit);
    // Courses naming every concept in title, category, topics, tutor or organisation rank first anyway (the all-concepts
    // bonus): when there are enough of them, only they are scored and the other matches are just counted.
    let allAnywhere: RankedPage | undefined;
    if (concepts.length > 1) {
      const all = page(await this.db.query(rankSql('head', 'all_q', where, params.length, filters), params));
      if (all.hits.length >= limit) {
        const [{ total }] = await this.db.query(countSql(where, params.length, filters), params.slice(0, -3));
        return { hits: all.hits, total: Number(total) };
      }
      // A course naming every concept, one of them only in its description, still beats one naming just some.
      allAnywhere = page(await this.db.query(rankSql('document', 'all_q', where, params.length, filters), params));
    }
    // Then any concept in those fields (small vectors, fast); the description only when they give too few.
    const head = page(await this.db.query(rankSql('head', 'any_q', where, params.length, filters), params));
    if (allAnywhere?.hits.length) return mergeRanked(allAnywhere, head, limit);
    if (head.hits.length >= limit) return head;
    const full = page(await this.db.query(rankSql('document', 'any_q', where, params.length, filters), params));
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
         FROM courses c JOIN tutors t ON t.id = c.tutor_id
        WHERE $${n - 1} <% lower(c.title) AND ${where}
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
      `SELECT c.id FROM courses c JOIN tutors t ON t.id = c.tutor_id WHERE c.id = ANY($1) AND ${where}`,
      params,
    );
    return new Set(rows.map((r) => r.id));
  }
}

/** Ranking over one vector column; the head rank orders both, so description-only matches come after, by popularity. */
function rankSql(column: 'head' | 'document', match: 'any_q' | 'all_q', where: string, n: number, filters: SearchFilters): string {
  // Title trigram similarity costs ~10 µs a row: it only re-orders the best RERANK_DEPTH by the cheaper signals.
  return `WITH q AS (SELECT to_tsquery('english', $${n - 3}) AS any_q, to_tsquery('english', $${n - 2}) AS all_q),
     ranked AS (
       SELECT c.id, c.title,
              ts_rank('${WEIGHTS}', d.head, q.any_q)
                + CASE WHEN d.head @@ q.all_q THEN 0.5 ELSE 0 END
                + 0.02 * ln(1 + c.enrolled) / ln(10) AS base,
              count(*) OVER () AS total
         FROM search_documents d CROSS JOIN q
         JOIN courses c ON c.id = d.course_id
         ${filters.organisation ? 'JOIN tutors t ON t.id = c.tutor_id' : ''}
        WHERE d.${column} @@ q.${match} AND ${where}
        ORDER BY base DESC, c.id
        LIMIT GREATEST(${RERANK_DEPTH}, $${n}))
     SELECT id, base + 0.3 * word_similarity($${n - 1}, lower(title)) AS score, total
       FROM ranked ORDER BY score DESC, id LIMIT $${n}`;
}

/** How many published courses pass the filters and name any concept outside their description. */
function countSql(where: string, n: number, filters: SearchFilters): string {
  return `SELECT count(*) AS total FROM search_documents d
       JOIN courses c ON c.id = d.course_id
       ${filters.organisation ? 'JOIN tutors t ON t.id = c.tutor_id' : ''}
      WHERE d.head @@ to_tsquery('english', $${n - 3}) AND ${where}`;
}

/** SQL conditions (on c = courses, t = tutors) for published courses passing the filters; pushes its parameters. */
function filterSql(filters: SearchFilters, params: unknown[]): string {
  const where = ['c.published'];
  const add = (sql: (p: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  if (filters.level) add((p) => `c.level = ${p}`, filters.level);
  if (filters.category) add((p) => `lower(c.category) = lower(${p})`, filters.category);
  if (filters.maxCreditCost !== undefined) add((p) => `c.credit_cost <= ${p}`, filters.maxCreditCost);
  if (filters.maxDurationHours !== undefined) add((p) => `c.duration_minutes <= ${p} * 60`, filters.maxDurationHours);
  if (filters.organisation) add((p) => `(c.organisation = ${p} OR t.name = ${p})`, filters.organisation);
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
