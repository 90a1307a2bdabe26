import { leftMisspelt, lexicalLeads, namesIn } from '../../src/search/search-engine';

describe('whether the lexical ranking leads the fusion', () => {
  const found = { hits: [{ id: 1, score: 1 }] };
  const all = { ...found, allConcepts: true };

  it('leads when some course names every concept, whatever the length or corrections', () => {
    expect(lexicalLeads(all, 9, false, false)).toBe(true);
    expect(lexicalLeads(all, 12, true, true)).toBe(true);
  });

  it('leads a short query with a corrected word: a rare correction alone, any correction beside another concept', () => {
    expect(lexicalLeads(found, 1, true, true)).toBe(true); // "kubernets"
    expect(lexicalLeads(found, 2, true, true)).toBe(true); // "kubernets deploymnet"
    expect(lexicalLeads(found, 3, true, false)).toBe(true); // "biolgy of the cel"
    expect(lexicalLeads(found, 1, true, false)).toBe(false);
  });

  it('does not lead a longer question on a correction, rare or not', () => {
    expect(lexicalLeads(found, 9, true, true)).toBe(false); // "…grooming, stabling and spotting…"
    expect(lexicalLeads(found, 5, true, false)).toBe(false);
  });

  it('does not lead without a correction or without lexical matches', () => {
    expect(lexicalLeads(found, 3, false, false)).toBe(false);
    expect(lexicalLeads({ hits: [] }, 2, true, true)).toBe(false);
  });

  it("counts a short query's unknown word left uncorrected, with no word vector, as misspelt", () => {
    const vector = new Map([['forget', {}]]);
    expect(leftMisspelt(['oceanegraphy'], new Map(), vector)).toBe(true); // no candidate the context accepts
    expect(leftMisspelt(['oceanegraphy'], new Map([['oceanegraphy', 'oceanography']]), vector)).toBe(false);
    expect(leftMisspelt(['forget'], new Map(), vector)).toBe(false); // common English the spelling skips
    expect(leftMisspelt([], new Map(), vector)).toBe(false);
  });
});

describe('names in a query', () => {
  it('reads the words capitalised after the first as names, lower-cased and without their punctuation', () => {
    expect([...namesIn('what happened to the Cree, Métis and Inuit after European traders arrived')]).toEqual(['cree', 'inuit', 'european']);
    expect([...namesIn("Rome's history on a trip to Rome")]).toEqual(['rome']);
    expect(namesIn('neuroscince of the brian').size).toBe(0);
  });
});
