import { buildConcepts, categoryMentions, extractFilters, ordinaryCategoryWords, toTsQuery } from '../../src/search/query-parser';
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

  it.each([
    ['guitar for beginners', { level: 'Beginner' }],
    ['as a beginner how do i start drawing', { level: 'Beginner' }],
    ['beginner python course', { level: 'Beginner' }],
    ['complete beginners guide to knitting', { level: 'Beginner' }],
    ['guitar beginners', { level: 'Beginner' }],
    ['python beginner-friendly', { level: 'Beginner' }],
    ['excel for the expert', { level: 'Advanced' }],
    ['expert level excel', { level: 'Advanced' }],
    ['expert-level excel', { level: 'Advanced' }],
    ['free online course in marketing', { maxCreditCost: 0 }],
    ['free project management course', { maxCreditCost: 0 }],
    ['python course for free', { maxCreditCost: 0 }],
    ['python courses that are free', { maxCreditCost: 0 }],
    ['web design classes, free', { maxCreditCost: 0 }],
    ['data science courses for beginners that are completely free', { level: 'Beginner', maxCreditCost: 0 }],
    ['an intro to statistics for someone who is a complete beginner', { level: 'Beginner' }],
    ['short course on writing', { maxDurationHours: 10 }],
    ['quick introduction to r', { maxDurationHours: 10 }],
  ])('reads a level, price or duration word that describes the course: "%s" → %j', (query, filters) =>
    expect(extractFilters(query, lexicon).filters).toEqual(filters),
  );

  it.each([
    'how do lab experts analyse blood stains, fingerprints and DNA left at a crime scene',
    'what do experts say about intermittent fasting',
    'the free tool statisticians rely on to crunch numbers and plot results',
    'what to do with my free time on weekdays',
    'how to write a short story that editors accept',
    'a brief history of the roman empire',
  ])('keeps a level, price or duration word of a question to rank: "%s"', (query) => {
    const out = extractFilters(query, lexicon);
    expect(out.filters).toEqual({});
    expect(out.rest).toBe(query.toLowerCase());
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

  it('ranks a category name used as a verb or said in a long question instead of filtering on it', () => {
    const ordinary = (query: string) => {
      const tokens = words(query);
      return [...ordinaryCategoryWords(tokens, categoryMentions(tokens, lexicon), lexicon)].map((at) => tokens[at]);
    };
    expect(ordinary('how do I design a study, gather data and draw sound conclusions for my dissertation')).toEqual(['design']);
    expect(ordinary('how can we design logos')).toEqual(['design']);
    expect(ordinary('pass the language exam foreign students must take to get into a British or American university')).toEqual(['language']);
    expect(ordinary('graphic design')).toEqual([]);
    expect(ordinary('law courses from harvard')).toEqual([]);
    expect(ordinary('ancient history')).toEqual([]);
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
