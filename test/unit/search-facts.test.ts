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

/** A database answering the facts queries from `rows` (the stamp changes with them), counting the loads. */
function factsDb(rows: CourseFacts[]) {
  const db = {
    rows,
    loads: 0,
    query: (text: string) => {
      if (text.includes('hashtextextended')) return Promise.resolve([{ stamp: JSON.stringify(db.rows) }]);
      db.loads++;
      return Promise.resolve(db.rows);
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
    const facts = new SearchFacts(factsDb(rows) as unknown as Queryable);
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
    const facts = new SearchFacts(db as unknown as Queryable);
    await facts.refresh();
    await facts.refresh();
    expect(db.loads).toBe(1);
    db.rows = [...rows.slice(1)];
    await facts.refresh();
    expect(db.loads).toBe(2);
    expect(facts.filter([1, 2], {})).toEqual(new Set([2]));
  });
});
