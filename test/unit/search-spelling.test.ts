import { correctedConcepts, realWordEvidence, saidFirst, similarityText, subjectOf, subjectTitleText } from '../../src/search/search-engine';
import { SPELLING } from '../../src/search/ranking-weights';
import { correctable, firstPlausible, preferSlips, typingSlips } from '../../src/search/spelling';

describe('the words a typed word may have been meant as (typing slips)', () => {
  it('a transposition, a dropped letter, a doubled letter and a neighbouring key are undone', () => {
    expect(typingSlips('brian')).toContain('brain');
    expect(typingSlips('quantm')).toContain('quantum');
    expect(typingSlips('persuassion')).toContain('persuasion');
    expect(typingSlips('brsin')).toContain('brain');
  });

  it('an extra key far from its neighbours, or a distant key for the right one, is no slip', () => {
    expect(typingSlips('swift')).not.toContain('shift');
    expect(typingSlips('rust')).not.toContain('must');
    expect(typingSlips('dart')).not.toContain('part');
    expect(typingSlips('brapin')).not.toContain('brain');
  });

  it('a space missed between two words is a slip: "bigdata" may be "big data"', () => {
    expect(typingSlips('bigdata')).toContain('big data');
    expect(typingSlips('powerbi')).toContain('power bi');
    // Each side keeps two letters at least.
    expect(typingSlips('powerbi')).not.toContain('powerb i');
  });

  it('never gives the word itself', () => {
    expect(typingSlips('data')).not.toContain('data');
  });
});

describe('words worth correcting', () => {
  it('are 4–30 ASCII letters', () => {
    expect(correctable('brian')).toBe(true);
    expect(correctable('sql')).toBe(false);
    expect(correctable('café')).toBe(false);
  });

  it('include a word run into its number, which the titles hyphenate ("covid19"), but no code led by digits or short', () => {
    expect(correctable('covid19')).toBe(true);
    expect(correctable('python3')).toBe(true);
    expect(correctable('cs50')).toBe(false);
    expect(correctable('3dprinting')).toBe(false);
    expect(correctable('k8s')).toBe(false);
    expect(correctable('log4j')).toBe(false);
  });
});

describe('corrections one edit away (preferSlips)', () => {
  const one = (fix: string) => ({ fix, oneEdit: true });
  const far = (fix: string) => ({ fix, oneEdit: false });

  it('keeps the typing slips and drops distant keys: "linx" is linux, not line or link', () => {
    expect(preferSlips('linx', [one('line'), one('link'), one('linux')]).map((c) => c.fix)).toEqual(['linux']);
  });

  it('keeps the candidates further away, which no slip explains', () => {
    expect(preferSlips('linx', [one('line'), one('linux'), far('lynx')]).map((c) => c.fix)).toEqual(['linux', 'lynx']);
  });

  it('takes two words typed as one over a distant key: "powerbi" is Power BI, not PowerAI', () => {
    expect(preferSlips('powerbi', [one('powerai'), one('power bi')]).map((c) => c.fix)).toEqual(['power bi']);
  });

  it('tells the other misspelt words the first candidate that is a slip: "moden" is modern, though more courses use model', () => {
    expect(firstPlausible('moden', [one('model'), one('modern'), far('modena')]).fix).toBe('modern');
    expect(firstPlausible('chian', [one('chain'), one('china')]).fix).toBe('chain');
    expect(firstPlausible('linx', [one('line'), one('link')]).fix).toBe('line');
  });

  it('keeps every candidate when none is a slip', () => {
    expect(preferSlips('linx', [one('line'), one('link')]).map((c) => c.fix)).toEqual(['line', 'link']);
  });
});

describe('a corrected query', () => {
  const finance = [['finance'], ['financial'], ['personal', 'finance']];
  const accounting = [['accounting']];
  const security = [['cybersecurity'], ['network', 'security'], ['security']];

  it('knows which concepts hold a corrected word, by the phrase its words make', () => {
    const tokens = ['network', 'basics', 'and', 'security'];
    const concepts = [[['network']], [['basics']], security];
    // The security group has a phrase with "network" in it, but the query's words make only "security" of it.
    expect(correctedConcepts(concepts, tokens, new Map([['netwrok', 'network']]))).toEqual([true, false, false]);
  });

  it('counts both words of a split as corrected', () => {
    const tokens = ['big', 'data', 'analytics'];
    expect(correctedConcepts([[['big']], [['data']], [['analytics']]], tokens, new Map([['bigdata', 'big data']]))).toEqual([true, true, false]);
  });

  it('compares titles with the phrase the corrected words make, and with the first phrase otherwise', () => {
    const tokens = ['financial', 'accounting'];
    expect(similarityText([finance, accounting], tokens, [true, true])).toBe('financial accounting');
    expect(similarityText([finance, accounting], tokens, [false, true])).toBe('finance accounting');
  });

  it('takes the subject among the concepts holding a corrected word, else among all', () => {
    const concepts = [[['cryptography']], [['network']], security];
    expect(subjectOf(concepts, [2.4, 0.9, 2.6], [true, true, false])).toBe(concepts[0]);
    expect(subjectOf(concepts, [2.4, 0.9, 2.6], [false, false, false])).toBe(concepts[2]);
    // No corrected concept is named outside a description: the others still compete.
    expect(subjectOf(concepts, [0, 0, 2.6], [true, true, false])).toBe(concepts[2]);
    expect(subjectOf(concepts, [0, 0, 0], [true, true, false])).toBeUndefined();
  });

  it('takes a concept typed right when it scores four times the corrected ones or more: the correction is a common word', () => {
    const concepts = [[['child']], [['development']]];
    expect(subjectOf(concepts, [2.07, 0.36], [false, true])).toBe(concepts[0]); // "child developmnt"
    const teaching = [[['teaching']], [['english']], [['tesol']]];
    expect(subjectOf(teaching, [0.32, 1.61, 3.84], [true, true, false])).toBe(teaching[1]); // "teachng englsh tesol"
  });

  it('counts and ranks a corrected concept by the phrase said, and the others by their first phrase', () => {
    const fitness = [['fitness'], ['exercise']];
    const science = [['science']];
    const counted = saidFirst([fitness, science], ['exercise', 'science'], [true, true]);
    expect(counted).toEqual([[['exercise'], ['fitness']], science]);
    expect(saidFirst([fitness, science], ['exercise', 'science'], [false, true])[0]).toBe(fitness);
  });

  it("orders a subject's courses by the words that narrow: a concept in more heads than are counted is left out", () => {
    const concepts = [[['stem']], [['cells']], [['research']]];
    expect(subjectTitleText(concepts, concepts[1], [1.0, 1.4, 0.6])).toBe('stem cells research');
    expect(subjectTitleText(concepts, concepts[1], [1.0, 1.4, 0])).toBe('stem cells');
    // A word said in passing beside the subject ("skills": a sixth of leadership's score) is left out too.
    const leadership = [[['leadership']], [['skills']]];
    expect(subjectTitleText(leadership, leadership[0], [1.17, 0.19])).toBe('leadership');
    const happiness = [[['science']], [['happiness']]];
    expect(subjectTitleText(happiness, happiness[1], [0, 2.1])).toBe('happiness');
  });
});

describe('a real word typed by mistake', () => {
  it('when no course uses it, in a few keywords, needs a candidate a few courses use, fitting better by any margin', () => {
    expect(realWordEvidence(0, true)).toEqual({ enough: SPELLING.realWordUnusedMinCourses, unused: true });
  });

  it('in a question, or when some course uses it, needs a candidate many more courses use, fitting clearly better', () => {
    expect(realWordEvidence(0, false)).toEqual({ enough: SPELLING.realWordMinCourses, unused: false });
    expect(realWordEvidence(2, true)).toEqual({ enough: 2 * SPELLING.realWordRatio, unused: false });
  });
});
