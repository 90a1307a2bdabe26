import { buildConcepts, categoryMentions, extractFilters, toTsQuery } from '../../src/search/query-parser';
import { reciprocalRankFusion } from '../../src/search/rank-fusion';
import { SearchLexicon, words } from '../../src/search/search-lexicon';
import { embeddingsEndpoint } from '../../src/search/embeddings.client';

const lexicon = SearchLexicon.load();

describe('search query parser', () => {
  it.each([
    ['free python for beginners', { level: 'Beginner', maxCreditCost: 0 }, 'python'],
    ['advanced statistics under 20 credits', { level: 'Advanced', maxCreditCost: 20 }, 'statistics'],
    ['short intro course for experts', { level: 'Advanced', maxDurationHours: 10 }, 'intro course'],
    ['negotiation in a weekend', { maxDurationHours: 16 }, 'negotiation'],
    ['excel less than 3 hours', { maxDurationHours: 3 }, 'excel'],
  ])('"%s" → filters %j', (query, filters, rest) => {
    const out = extractFilters(query, lexicon);
    expect(out.filters).toEqual(filters);
    expect(out.rest).toBe(rest);
  });

  it('offers "from"/"by" phrases longest first, short names expanded', () => {
    expect(extractFilters('law from harvard university', lexicon).organisationCandidates.map((c) => c.phrase)).toEqual(['harvard university', 'harvard']);
    expect(extractFilters('python by mit', lexicon).organisationCandidates).toEqual([{ phrase: 'Massachusetts Institute of Technology', rest: 'python' }]);
  });

  it('offers no phrase of function words alone ("the" is in many organisations\' names)', () => {
    expect(extractFilters('show up at the top of google results', lexicon).organisationCandidates).toEqual([]);
    expect(extractFilters('courses from the open university', lexicon).organisationCandidates.map((c) => c.phrase)).toEqual([
      'the open university',
      'the open',
    ]);
  });

  it('groups synonyms, takes the first category name as a filter and drops topic-less words', () => {
    const filters = {};
    const concepts = buildConcepts(words('I want to learn ML and web dev in computer science'), lexicon, filters);
    expect(filters).toEqual({ category: 'Computer Science' });
    expect(concepts[0]).toContainEqual(['machine', 'learning']);
    expect(concepts[1]).toContainEqual(['web', 'development']);
    expect(concepts).toHaveLength(2);
    expect(toTsQuery([[['ml']], [['web', 'dev']]], '&')).toBe('(ml) & (web <-> dev)');
  });

  it('ranks a category name that is part of a subject instead of filtering on it', () => {
    const tokens = words('user experience design');
    expect(categoryMentions(tokens, lexicon)).toEqual([{ at: 2, words: 1, category: 'Design' }]);
    const filters = {};
    const concepts = buildConcepts(tokens, lexicon, filters, new Set([2]));
    expect(filters).toEqual({});
    expect(concepts).toHaveLength(2);
    expect(concepts[0]).toContainEqual(['user', 'experience']);
    expect(concepts[1]).toEqual([['design']]);
  });

  it('ranks a category name that is all there is to rank, besides filtering on it', () => {
    const filters = {};
    expect(buildConcepts(words('introduction to philosophy'), lexicon, filters)).toEqual([[['philosophy']]]);
    expect(filters).toEqual({ category: 'Philosophy & Ethics' });
  });
});

describe('search helpers', () => {
  it('fuses rankings by reciprocal rank', () =>
    expect(
      reciprocalRankFusion([
        [1, 2, 3],
        [3, 1],
      ]).map((x) => x.id),
    ).toEqual([1, 3, 2]));
  it.each([
    ['https://api.example.com', 'https://api.example.com/v1/embeddings'],
    ['https://api.example.com/v1/', 'https://api.example.com/v1/embeddings'],
    ['http://127.0.0.1:9/v1/embeddings', 'http://127.0.0.1:9/v1/embeddings'],
  ])('embeddings endpoint of %s', (url, endpoint) => expect(embeddingsEndpoint(url)).toBe(endpoint));
});
