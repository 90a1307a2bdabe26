import { DataSource } from 'typeorm';
import { COURSE_LIST_COLUMNS, CourseUrls, rowToCourseListItem } from '../courses/course.mapper';
import { InterpretedDto, SearchResponseDto, SearchResultDto } from './dto/search.dto';
import { LexicalSearch, RankedHit } from './lexical-search';
import { buildConcepts, extractFilters, SearchFilters } from './query-parser';
import { reciprocalRankFusion } from './rank-fusion';
import { SearchLexicon, words } from './search-lexicon';
import { SemanticSearch } from './semantic-search';

// Candidates each ranking contributes to the fusion.
const FUSION_DEPTH = 100;

export interface SearchLogger {
  warn(message: string): void;
}

/** Natural-language search: filters from words, lexical ranking in PostgreSQL, fused with the hosted model's when it answers. */
export class SearchEngine {
  private readonly lexical: LexicalSearch;

  constructor(
    private readonly db: DataSource,
    private readonly lexicon: SearchLexicon,
    private readonly urls: CourseUrls,
    private readonly semantic?: SemanticSearch,
    private readonly logger?: SearchLogger,
  ) {
    this.lexical = new LexicalSearch(db);
  }

  async search(query: string, limit: number): Promise<SearchResponseDto> {
    const { filters, text, concepts, corrections, semanticText } = await this.understand(query);
    const useSemantic = Boolean(this.semantic && text);
    const [lexical, semanticIds] = await Promise.all([
      this.lexical.rank(concepts, text, filters, useSemantic ? FUSION_DEPTH : limit),
      useSemantic ? this.semanticRanking(semanticText, filters) : null,
    ]);

    let hits: RankedHit[] = lexical.hits.slice(0, limit);
    let total = lexical.total;
    if (semanticIds) {
      const lexicalIds = new Set(lexical.hits.map((h) => h.id));
      hits = reciprocalRankFusion([lexical.hits.map((h) => h.id), semanticIds]).slice(0, limit);
      total += semanticIds.filter((id) => !lexicalIds.has(id)).length;
    }
    return {
      query,
      interpreted: interpreted(filters, text, corrections),
      engine: semanticIds ? 'semantic' : 'lexical',
      results: await this.hydrate(hits),
      total,
    };
  }

  /** Filters out of the words, organisation resolved, misspellings corrected, the rest grouped into concepts. */
  async understand(query: string) {
    const extracted = extractFilters(query, this.lexicon);
    const filters: SearchFilters = extracted.filters;
    let rest = extracted.rest;
    const organisation = await this.lexical.resolveOrganisation(extracted.organisationCandidates.map((c) => c.phrase));
    if (organisation) {
      filters.organisation = organisation.name;
      rest = extracted.organisationCandidates[organisation.index].rest;
    }
    const raw = words(rest).filter((w) => !this.lexicon.stopwords.has(w) && !this.lexicon.knownWords.has(w));
    const corrections = await this.lexical.corrections(raw);
    const tokens = words(rest).map((w) => corrections.get(w) ?? w);
    const concepts = buildConcepts(tokens, this.lexicon, filters);
    const text = concepts.map((c) => c[0].join(' ')).join(' ');
    return { filters, text, concepts, corrections, semanticText: tokens.join(' ') };
  }

  /** The model's ranking restricted to the filters, or null when it failed or was too slow (the search goes on lexically). */
  private async semanticRanking(text: string, filters: SearchFilters): Promise<number[] | null> {
    try {
      const ids = await this.semantic!.rank(text, FUSION_DEPTH * 3);
      if (!ids.length) return null;
      const allowed = await this.lexical.filterIds(ids, filters);
      return ids.filter((id) => allowed.has(id)).slice(0, FUSION_DEPTH);
    } catch (e) {
      this.logger?.warn(`semantic search skipped: ${(e as Error).message}`);
      return null;
    }
  }

  private async hydrate(hits: RankedHit[]): Promise<SearchResultDto[]> {
    if (!hits.length) return [];
    const rows: Array<Record<string, any>> = await this.db.query(
      `SELECT ${COURSE_LIST_COLUMNS}
         FROM courses c JOIN tutors t ON t.id = c.tutor_id
        WHERE c.id = ANY($1) AND c.published`,
      [hits.map((h) => h.id)],
    );
    const byId = new Map(rows.map((r) => [r.id as number, r]));
    return hits.flatMap((h) => {
      const r = byId.get(h.id);
      if (!r) return [];
      return [{ ...rowToCourseListItem(r, this.urls), score: Math.round(h.score * 10_000) / 10_000 }];
    });
  }
}

function interpreted(filters: SearchFilters, text: string, corrections: Map<string, string>): InterpretedDto {
  const out: InterpretedDto = { text };
  if (filters.level) out.level = filters.level;
  if (filters.category) out.category = filters.category;
  if (filters.maxCreditCost !== undefined) out.max_credit_cost = filters.maxCreditCost;
  if (filters.maxDurationHours !== undefined) out.max_duration_hours = filters.maxDurationHours;
  if (filters.organisation) out.organisation = filters.organisation;
  if (corrections.size) out.corrections = Object.fromEntries(corrections);
  // Keep the documented key order: filters first, then the ranked text.
  const { text: ranked, ...rest } = out;
  return { ...rest, text: ranked };
}
