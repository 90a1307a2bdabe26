import { CourseFacts } from '../../src/search/lexical-search.store';
import { SearchFacts } from '../../src/search/search-facts';
import type { Queryable } from '../../src/common/database';

const course = (id: number, over: Partial<CourseFacts> = {}): CourseFacts => ({
  id,
  level: 'Beginner',
  category_key: 'computer science',
  credit_cost: 20,
  duration_minutes: 120,
  organisation: 'Stanford University',
  tutor_name: 'Ada Lovelace',
  ...over,
});

/**
 * A database answering the facts queries from `rows` (the version changes with them; the facts in pages), counting the
 * loads; the names statements answer the organisations by number of courses and the tutors in the order given.
 */
function factsDb(rows: CourseFacts[], tutors: string[] = [], titles: Record<number, string> = {}) {
  const named = (names: string[]) => names.map((name) => ({ name, lower: name.toLowerCase() }));
  const db = {
    rows,
    titles,
    loads: 0,
    query: (text: string, params: unknown[] = []) => {
      if (text.includes('search_versions')) return Promise.resolve([{ version: JSON.stringify([db.rows, db.titles]) }]);
      if (text.includes('c.title')) return Promise.resolve(db.rows.map((r) => ({ id: r.id, title: db.titles[r.id] ?? `Course ${r.id}` })));
      if (text.includes('published_tutors')) return Promise.resolve(named(tutors));
      if (text.includes('GROUP BY')) {
        const counts = new Map<string, number>();
        for (const r of db.rows) if (r.organisation) counts.set(r.organisation, (counts.get(r.organisation) ?? 0) + 1);
        return Promise.resolve(named([...counts.keys()].sort((a, b) => counts.get(b)! - counts.get(a)! || (a < b ? -1 : 1))));
      }
      // The facts, in pages by id after the first parameter (a load counted at its first page).
      const [after, limit] = params as number[];
      if (!after) db.loads++;
      return Promise.resolve(db.rows.filter((r) => r.id > after).slice(0, limit));
    },
  };
  return db;
}

describe('the search facts in memory', () => {
  const rows = [
    course(1),
    course(2, { level: 'Advanced', credit_cost: 0 }),
    course(3, { category_key: 'business', duration_minutes: 600 }),
    course(4, { organisation: null, tutor_name: 'Grace Hopper' }),
  ];

  it('answers null until loaded, so that the caller asks the database', () => {
    expect(new SearchFacts(factsDb(rows) as unknown as Queryable).filter([1], {})).toBeNull();
  });

  it('keeps the published courses passing each filter, as the filter statement does', async () => {
    const facts = new SearchFacts(factsDb(rows));
    await facts.refresh();
    const pass = (filters: Parameters<SearchFacts['filter']>[1]) => [...facts.filter([1, 2, 3, 4, 99], filters)!].sort();
    // 99 is no published course.
    expect(pass({})).toEqual([1, 2, 3, 4]);
    expect(pass({ level: 'Advanced' })).toEqual([2]);
    // The category is compared lower-cased (search_heads keeps category_key = lower(category)).
    expect(pass({ category: 'Computer Science' })).toEqual([1, 2, 4]);
    expect(pass({ maxCreditCost: 0 })).toEqual([2]);
    expect(pass({ maxDurationHours: 2 })).toEqual([1, 2, 4]);
    expect(pass({ maxDurationHours: 1 })).toEqual([]);
    // An organisation matches the course's organisation or its tutor.
    expect(pass({ organisation: 'Stanford University' })).toEqual([1, 2, 3]);
    expect(pass({ organisation: 'Grace Hopper' })).toEqual([4]);
    expect(pass({ organisation: 'Grace Hopper', level: 'Advanced' })).toEqual([]);
  });

  it('reloads only when the stamp moved', async () => {
    const db = factsDb(rows);
    const facts = new SearchFacts(db);
    await facts.refresh();
    await facts.refresh();
    expect(db.loads).toBe(1);
    db.rows = [...rows.slice(1)];
    await facts.refresh();
    expect(db.loads).toBe(2);
    expect(facts.filter([1, 2], {})).toEqual(new Set([2]));
  });

  it('resolves "from …" phrases as the organisation statement does: organisations by courses, then tutors, whole words', async () => {
    const catalogue = [
      ...rows,
      course(5, { organisation: 'University of Michigan' }),
      course(6, { organisation: 'Michigan State University' }),
      course(7, { organisation: 'Michigan State University' }),
    ];
    const facts = new SearchFacts(factsDb(catalogue, ['Ada Lovelace', 'Grace Hopper', 'Adam Smith']));
    expect(facts.resolveOrganisation(['stanford'])).toBeUndefined();
    await facts.refresh();
    expect(facts.resolveOrganisation(['stanford university', 'stanford'])).toEqual({ index: 0, name: 'Stanford University' });
    // The organisation with more courses wins among those the phrase names.
    expect(facts.resolveOrganisation(['michigan'])).toEqual({ index: 0, name: 'Michigan State University' });
    expect(facts.resolveOrganisation(['university of michigan'])).toEqual({ index: 0, name: 'University of Michigan' });
    // Whole words only ("ada" is not "adam"), in the order of the phrases; tutors after organisations.
    expect(facts.resolveOrganisation(['python', 'ada'])).toEqual({ index: 1, name: 'Ada Lovelace' });
    expect(facts.resolveOrganisation(['hopper'])).toEqual({ index: 0, name: 'Grace Hopper' });
    expect(facts.resolveOrganisation(['stan', 'lovelace hopper'])).toBeNull();
    // Regular expression characters are taken literally.
    expect(facts.resolveOrganisation(['michigan.*'])).toBeNull();
  });

  it('ranks the published titles passing the filters by the words as typed, and follows a title edit', async () => {
    const db = factsDb(rows, [], { 1: 'Game Theory', 2: 'Game Theory for Strategists', 3: 'Board Games', 4: 'Theory of Computation' });
    const facts = new SearchFacts(db);
    const options = { maxTitlesPerWord: 100, depth: 10 };
    expect(facts.fuzzyTitles(['game', 'theroy'], ['theroy'], {}, options)).toBeNull();
    await facts.refresh();
    expect(facts.fuzzyTitles(['game', 'theroy'], ['theroy'], {}, options)!.map((h) => h.id)).toEqual([1, 2, 4]);
    expect(facts.fuzzyTitles(['game', 'theroy'], ['theroy'], { level: 'Advanced' }, options)!.map((h) => h.id)).toEqual([2]);
    db.titles = { ...db.titles, 3: 'Theory of Board Games' };
    await facts.refresh();
    expect(facts.fuzzyTitles(['game', 'theroy'], ['theroy'], {}, options)!.map((h) => h.id)).toEqual([1, 2, 3, 4]);
  });

  it('reads two words typed apart and a short word two slips off by the published titles, once loaded', async () => {
    const db = factsDb(rows, [], { 1: 'Teaching in the Classroom', 2: 'Social Justice', 3: 'Geopolitics of Europe', 4: 'Energy' });
    const facts = new SearchFacts(db);
    expect(facts.joinedTitleWord('class', 'room', false)).toBeNull();
    expect(facts.closestTitleWord('jsutcie')).toBeNull();
    await facts.refresh();
    expect(facts.joinedTitleWord('class', 'room', false)).toBe('classroom');
    expect(facts.joinedTitleWord('geo', 'poltics', true)).toBe('geopolitics');
    expect(facts.closestTitleWord('jsutcie')).toBe('justice');
    expect(facts.closestTitleWord('enrgey')).toBe('energy');
  });

  it('answers from the old facts and titles while a reload builds the new index, then from the new ones only', async () => {
    // Enough titles for a build of several slices; every title edited between the loads.
    const many = Array.from({ length: 20_000 }, (_, i) => course(i + 1));
    const titled = (edition: string) => Object.fromEntries(many.map((c) => [c.id, `${edition} Course ${c.id} Theory`]));
    const db = factsDb(many, [], titled('Applied'));
    const facts = new SearchFacts(db);
    await facts.refresh();
    const options = { maxTitlesPerWord: 100_000, depth: 3 };
    const ranked = () => facts.fuzzyTitles(['appleid', 'modren'], ['appleid', 'modren'], {}, options)!.map((h) => h.id);
    expect(ranked()).toEqual([1, 2, 3]);
    db.rows = many.slice(5);
    db.titles = titled('Modern');
    let done = false;
    const reload = facts.refresh().then(() => (done = true));
    // Asked during the reload: coalesced into it (one more run, which finds the stamp unchanged).
    const again = facts.refresh();
    let turns = 0;
    while (!done) {
      await new Promise((r) => setImmediate(r));
      if (done) break;
      turns++;
      expect(ranked()).toEqual([1, 2, 3]);
      expect(facts.filter([1], {})).toEqual(new Set([1]));
    }
    await Promise.all([reload, again]);
    expect(turns).toBeGreaterThan(0);
    expect(db.loads).toBe(2);
    // "appleid" is no slip of any title word now; "modren" finds every published title (courses 1–5 no longer are).
    expect(ranked()).toEqual([6, 7, 8]);
    expect(facts.filter([1, 6], {})).toEqual(new Set([6]));
  });
});
