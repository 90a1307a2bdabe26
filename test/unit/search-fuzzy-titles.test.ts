import { TimeSlices } from '../../src/common/time-slices';
import { FuzzyTitleIndex, slipDistance, titleWords } from '../../src/search/fuzzy-titles';

const options = { maxTitlesPerWord: 1000, depth: 100 };
const ids = (hits: Array<{ id: number }>) => hits.map((h) => h.id);

describe('the fuzzy title index', () => {
  it('counts a swap of two neighbours as one slip', () => {
    expect(slipDistance('theroy', 'theory')).toBe(1);
    expect(slipDistance('robtics', 'robotics')).toBe(1);
    expect(slipDistance('stratgey', 'strategy')).toBe(1);
    expect(slipDistance('strqtegyy', 'strategy')).toBe(2);
    expect(slipDistance('python', 'python')).toBe(0);
    // Past the bound it answers bound + 1 without finishing.
    expect(slipDistance('cryptography', 'security', 2)).toBe(3);
    expect(titleWords('Game Theory: Strategy & C++')).toEqual(['game', 'theory', 'strategy', 'c']);
  });

  it('finds a title through a transposition and through a letter dropped inside a word', () => {
    const index = new FuzzyTitleIndex([
      { id: 1, title: 'Game Theory' },
      { id: 2, title: 'Robotics and Automation' },
      { id: 3, title: 'Introduction to Python' },
    ]);
    expect(ids(index.rank(['game', 'theroy'], ['theroy'], options))).toEqual([1]);
    // "robtics": a letter dropped inside a short word, under a trigram look-up's threshold.
    expect(ids(index.rank(['robtics'], ['robtics'], options))).toEqual([2]);
    // Two slips in a long word (a wrong key and one struck twice) are within reach; a word three slips away is not.
    const strategy = new FuzzyTitleIndex([{ id: 7, title: 'Competitive Strategy' }]);
    expect(ids(strategy.rank(['strqtegyy'], ['strqtegyy'], options))).toEqual([7]);
    expect(strategy.rank(['strtgy'], ['strtgy'], options)).toEqual([]);
  });

  it('finds titles by the misspelt words only, and a common word typed right does not rule', () => {
    const titles = [
      { id: 1, title: 'Applied Cryptography' },
      { id: 2, title: 'Cryptography and Network Security' },
      ...Array.from({ length: 20 }, (_, i) => ({ id: 10 + i, title: `Network Security Foundations ${i}` })),
    ];
    const index = new FuzzyTitleIndex(titles);
    const ranked = index.rank(['cryptograpy', 'netwrok', 'security'], ['cryptograpy', 'netwrok'], options);
    // The two cryptography titles lead; the twenty naming network security only follow.
    expect(ids(ranked).slice(0, 2)).toEqual([2, 1]);
    expect(ranked).toHaveLength(22);
    expect(ranked[1].score).toBeGreaterThan(ranked[2].score);
    // "security" typed right finds no title by itself.
    expect(index.rank(['security'], [], options)).toEqual([]);
  });

  it('holds the cap on the titles a misspelt word finds, keeping its rarer matches', () => {
    const titles = [
      ...Array.from({ length: 50 }, (_, i) => ({ id: 100 + i, title: `Model Building ${i}` })),
      { id: 1, title: 'Modern China' },
      { id: 2, title: 'Modern Art' },
    ];
    const index = new FuzzyTitleIndex(titles);
    // "moden" is a slip from model (50 titles) and from modern (2): under a cap of 10, modern's titles alone.
    expect(ids(index.rank(['moden'], ['moden'], { maxTitlesPerWord: 10, depth: 100 })).sort()).toEqual([1, 2]);
    expect(index.rank(['moden'], ['moden'], { maxTitlesPerWord: 100, depth: 100 })).toHaveLength(52);
    expect(index.rank(['moden'], ['moden'], { maxTitlesPerWord: 100, depth: 5 })).toHaveLength(5);
  });

  it('looks two slips away in a word of five to seven letters only when no title word is one slip away', () => {
    const index = new FuzzyTitleIndex([
      { id: 1, title: 'Social Justice' },
      { id: 2, title: 'Business Ethics' },
      { id: 3, title: 'Medical Cannabis: THC and CBD' },
      { id: 4, title: 'Energy Policy' },
      { id: 5, title: 'Local News' },
    ]);
    // Two swaps ("jsutcie"), a swap and a letter dropped ("etihc"), a letter moved ("enrgey").
    expect(index.closest('jsutcie')).toBe('justice');
    expect(index.closest('etihc')).toBe('ethics');
    expect(index.closest('enrgey')).toBe('energy');
    // "socal" is a slip from social and from local: the title holding both words leads.
    expect(ids(index.rank(['socal', 'jsutcie'], ['socal', 'jsutcie'], options))).toEqual([1, 5]);
    // "thc" is two letters dropped from "etihc", no slip of it.
    expect(index.matches('etihc').map((m) => m.similarity)).toHaveLength(1);
    // One slip away wins alone: "locak" is local's, not also "social"'s at two slips.
    expect(index.closest('locak')).toBe('local');
    expect(index.matches('locak')).toHaveLength(1);
    // Four letters stay one slip away, and nothing two away is a correction.
    expect(index.closest('enrg')).toBeNull();
    expect(index.closest('xyzzyq')).toBeNull();
  });

  it('reads two words typed apart as the title word they make, exactly or a slip away when one is misspelt', () => {
    const index = new FuzzyTitleIndex([
      { id: 1, title: 'Teaching in the Classroom' },
      { id: 2, title: 'Geopolitics of Europe' },
      { id: 3, title: 'Nanotechnology: A Maker’s Course' },
      { id: 4, title: 'Web Development' },
    ]);
    expect(index.joined('class', 'room', false)).toBe('classroom');
    expect(index.joined('geo', 'poltics', true)).toBe('geopolitics');
    expect(index.joined('nano', 'technolgy', true)).toBe('nanotechnology');
    // Known words are joined only into the title word they make exactly.
    expect(index.joined('geo', 'poltics', false)).toBeNull();
    expect(index.joined('web', 'development', true)).toBeNull();
    // Short joins are not matched a slip away: too many words are near them.
    expect(index.joined('cla', 'sroo', true)).toBeNull();
  });

  it('builds in slices the same index as in one step, yielding to the event loop between them', async () => {
    const words = ['Applied', 'Machine', 'Learning', 'Cryptography', 'Network', 'Security', 'Robotics', 'Theory', 'Game', 'Python', 'Data'];
    // A few thousand titles (several chunks), some ids and words repeated, as a grown catalogue has them.
    const titles = Array.from({ length: 3000 }, (_, i) => ({
      id: 10 + (i % 2900),
      title: `${words[i % 11]} ${words[(i * 7) % 11]} ${words[(i * 3) % 5]}${i % 13} ${i % 17 ? '' : 'Geopolitics'}`,
    }));
    const whole = new FuzzyTitleIndex(titles);
    let yields = 0;
    const ticker = setInterval(() => yields++, 0);
    // A zero budget yields after every chunk: the most slices this build can be cut into.
    const sliced = await FuzzyTitleIndex.build(titles, new TimeSlices(0));
    clearInterval(ticker);
    expect(yields).toBeGreaterThan(0);
    // Every map and list the same, in the same order (ids of words, postings, deletion lists, titles' words).
    type Inside = { vocabulary: string[]; ids: Map<string, number>; postings: number[][]; deleted: Map<string, number[]>; titles: Map<number, Uint32Array> };
    const inside = (index: FuzzyTitleIndex) => {
      const i = index as unknown as Inside;
      return { vocabulary: i.vocabulary, ids: [...i.ids], postings: i.postings, deleted: [...i.deleted], titles: [...i.titles].map(([id, w]) => [id, [...w]]) };
    };
    expect(inside(sliced)).toEqual(inside(whole));
    expect(sliced.rank(['machne', 'lerning'], ['machne', 'lerning'], options)).toEqual(whole.rank(['machne', 'lerning'], ['machne', 'lerning'], options));
    expect(sliced.closest('geopoltics')).toBe('geopolitics');
  });
});
