import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lexicalLedFusion, standardScoreFusion, weightedRankFusion } from '../../src/search/rank-fusion';
import { topScores } from '../../src/search/semantic/top-scores';
import { CourseText, CourseVectorIndex, WordVector } from '../../src/search/semantic/course-vector-index';
import { ExpandedBm25 } from '../../src/search/semantic/expanded-bm25';
import { EXPANSION } from '../../src/search/ranking-weights';
import { DIMENSIONS, fromBytes } from '../../src/search/semantic/vectors';
import { quantise, readWordVectors } from '../../src/search/semantic/word-vector-import';

/** A unit vector mostly along axis `axis`, leaning `lean` towards axis `towards`. */
function unit(axis: number, towards = axis, lean = 0): Float32Array {
  const v = new Float32Array(DIMENSIONS);
  v[axis] = 1;
  v[towards] += lean;
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

// Axis 0: security, 1: pottery, 2: cooking; ranks as in a frequency list (lower = more common).
const WORDS: Record<string, WordVector> = {
  hackers: { v: unit(0, 3, 0.3), rank: 16_000 },
  cybersecurity: { v: unit(0), rank: 40_000 },
  security: { v: unit(0, 1, 0.4), rank: 900 },
  pottery: { v: unit(1), rank: 30_000 },
  clay: { v: unit(1, 2, 0.3), rank: 12_000 },
  recipes: { v: unit(2), rank: 9_000 },
  basics: { v: unit(4), rank: 5_000 },
};
const lookup = (w: string) => WORDS[w];
const course = (id: number, title: string, description = ''): CourseText => ({ id, title, category: '', topics: '', description });
const COURSES = [course(1, 'Cybersecurity basics'), course(2, 'Pottery with clay'), course(3, 'Recipes', 'Basics of cooking at home.')];

describe('query expansion into the catalogue vocabulary, ranked by BM25F', () => {
  let index: ExpandedBm25;
  beforeAll(async () => {
    index = await ExpandedBm25.build(COURSES, lookup, new Set());
  });
  const loose = { ...EXPANSION, floor: 0.5 };

  it('a query word stands for its nearest catalogue words above the cosine floor, itself first when the catalogue uses it', () => {
    const near = index.expand('hackers', WORDS.hackers.v, loose);
    expect(near.map((e) => e.word)).toEqual(['cybersecurity']);
    expect(near[0].sim).toBeGreaterThan(0.9);
    const own = index.expand('clay', WORDS.clay.v, loose);
    expect(own[0]).toEqual({ word: 'clay', sim: 1 });
    expect(own.map((e) => e.word)).toContain('pottery');
  });

  it('finds the course whose words mean what the query says, though they share no word', () => {
    const scores = index.score([{ word: 'hackers', vector: WORDS.hackers }], loose);
    const best = [...scores].indexOf(Math.max(...scores));
    expect(index.ids[best]).toBe(1);
    expect(scores[1]).toBe(0); // pottery shares nothing with hackers
    expect(scores[2]).toBe(0);
  });

  it('the word itself counts more than a near word: the title saying "clay" beats the one saying only "pottery"', async () => {
    const withBoth = await ExpandedBm25.build([course(1, 'Pottery'), course(2, 'Clay')], lookup, new Set());
    const scores = withBoth.score([{ word: 'clay', vector: WORDS.clay }], loose);
    expect(scores[1]).toBeGreaterThan(scores[0]);
    expect(scores[0]).toBeGreaterThan(0);
  });

  it('a word far from every catalogue word expands to nothing', () => {
    const far = { v: unit(7), rank: 20_000 };
    expect(index.expand('far', far.v, EXPANSION)).toEqual([]);
    expect([...index.score([{ word: 'far', vector: far }], EXPANSION)].every((s) => s === 0)).toBe(true);
  });

  it('gives the same scores every time (deterministic, cache or not)', () => {
    const q = [
      { word: 'hackers', vector: WORDS.hackers },
      { word: 'clay', vector: WORDS.clay },
    ];
    expect([...index.score(q, loose)]).toEqual([...index.score(q, loose)]);
  });
});

describe('term feedback (RM3) from the first pass', () => {
  // "firewall" is far from "hackers" in the vectors: only feedback from the course that says both can reach course 4.
  const more: Record<string, WordVector> = { ...WORDS, firewall: { v: unit(5), rank: 25_000 }, routers: { v: unit(6), rank: 26_000 } };
  const courses = [...COURSES, course(4, 'Firewall setup', 'Routers and firewall rules.'), course(5, 'Cybersecurity', 'Firewall routers.')];
  let index: ExpandedBm25;
  beforeAll(async () => {
    index = await ExpandedBm25.build(courses, (w) => more[w], new Set());
  });
  const loose = { ...EXPANSION, floor: 0.5 };

  it('takes the heaviest words of the best courses, weighted by their scores, summing to 1', () => {
    const first = index.score([{ word: 'hackers', vector: more.hackers }], loose);
    const terms = index.feedbackTerms(first, [0, 4], 10);
    const words = terms.map((t) => index.wordAt(t.at));
    expect(words).toEqual(expect.arrayContaining(['cybersecurity', 'firewall', 'routers', 'basics']));
    expect(words).not.toContain('pottery');
    expect(terms.reduce((a, t) => a + t.weight, 0)).toBeCloseTo(1, 5);
    // Weights are sorted, best first, and capped at the count asked for.
    expect(terms.map((t) => t.weight)).toEqual([...terms.map((t) => t.weight)].sort((a, b) => b - a));
    expect(index.feedbackTerms(first, [0, 4], 2)).toHaveLength(2);
  });

  it('lifts a course that shares the feedback words but none of the query words', () => {
    const first = index.score([{ word: 'hackers', vector: more.hackers }], loose);
    expect(first[3]).toBe(0);
    const fed = index.scoreTerms(index.feedbackTerms(first, [0, 4], 10));
    expect(fed[3]).toBeGreaterThan(0); // Firewall setup
    expect(fed[1]).toBe(0); // Pottery with clay
  });

  it('courses with no first-pass score give no words', () => {
    expect(index.feedbackTerms(new Float32Array(courses.length), [0, 1], 10)).toEqual([]);
    expect(ExpandedBm25.empty().feedbackTerms(new Float32Array(), [], 10)).toEqual([]);
  });
});

describe('course and query vectors', () => {
  let index: CourseVectorIndex;
  beforeAll(async () => {
    index = await CourseVectorIndex.build(COURSES, lookup);
  });

  it('ranks courses by cosine to the query vector, best first, above the floor', () => {
    const q = index.queryVector(['clay'], lookup)!;
    expect(index.nearest(q, 3, 0.1)[0].id).toBe(2);
  });

  it("pseudo-relevance feedback moves the query towards the first pass's best courses", () => {
    const q = index.queryVector(['recipes'], lookup)!;
    const potteryAt = [...index.ids].indexOf(2);
    const before = index.cosines(q)[potteryAt];
    const after = index.cosines(index.feedback(q, [potteryAt], 0.5))[potteryAt];
    expect(after).toBeGreaterThan(before);
    expect([...index.feedback(q, [], 0.5)]).toEqual([...q]);
  });

  it('a query none of whose words has a vector has no vector', () => {
    expect(index.queryVector(['zzzz', 'qqqq'], lookup)).toBeNull();
  });
});

describe('the best courses of a ranking', () => {
  it('are the k highest scores at or above the floor, best first, ties by position', () => {
    const scores = Float32Array.from([0.1, 0.9, 0.5, 0.9, 0.05, 0.7, 0.3]);
    expect(topScores(scores, 3, 0.2)).toEqual([1, 3, 5]);
    expect(topScores(scores, 10, 0.2)).toEqual([1, 3, 5, 2, 6]);
    expect(topScores(scores, 10, 0.95)).toEqual([]);
  });

  it('are those of a full sort, on many scores with ties, for any k and floor', () => {
    let x = 7;
    // Scores on a coarse grid, so that many tie.
    const scores = Float32Array.from({ length: 5000 }, () => ((x = (x * 1103515245 + 12345) % 2 ** 31) % 200) / 100 - 1);
    const positions = [...scores.keys()];
    for (const [k, floor] of [
      [0, -Infinity],
      [1, -Infinity],
      [300, 0.1],
      [1000, -Infinity],
      [5000, 0.5],
      [9000, -2],
    ]) {
      const want = positions
        .filter((c) => scores[c] >= floor)
        .sort((a, b) => scores[b] - scores[a] || a - b)
        .slice(0, k);
      expect(topScores(scores, k, floor)).toEqual(want);
    }
  });
});

describe('weighted reciprocal rank fusion', () => {
  it('a course both rankings place high beats one only a single ranking has', () => {
    const fused = weightedRankFusion([
      { ids: [1, 2, 3], weight: 1 },
      { ids: [2, 4], weight: 1 },
    ]).map((x) => x.id);
    expect(fused[0]).toBe(2);
    expect(fused).toEqual([2, 1, 4, 3]);
  });

  it('a weak lexical ranking (weight 0.1) lifts a semantic candidate it also has, and its own come after the semantic ones', () => {
    const fused = weightedRankFusion([
      { ids: [9, 8, 7], weight: 0.1 },
      { ids: [1, 2, 3, 7], weight: 1 },
    ]).map((x) => x.id);
    expect(fused).toEqual([7, 1, 2, 3, 9, 8]);
  });

  it('a heavier ranking leads', () => {
    expect(
      weightedRankFusion([
        { ids: [1, 2], weight: 0.2 },
        { ids: [3, 4], weight: 1 },
      ]).map((x) => x.id),
    ).toEqual([3, 4, 1, 2]);
  });
});

describe('fusion led by the lexical ranking', () => {
  // Lexical scores: 1 and 0.95 close together, then 0.6 (a clear gap), then 0.58.
  const lexical = {
    hits: [
      { id: 1, score: 1 },
      { id: 2, score: 0.95 },
      { id: 3, score: 0.6 },
      { id: 4, score: 0.58 },
    ],
  };
  // Two small rankings that both prefer 3, then 4, and return a course of their own (9).
  const others = [
    { ids: [3, 4, 9], weight: 0.1 },
    { ids: [3, 4, 9], weight: 0.1 },
  ];

  it('without keepGaps it is weighted reciprocal rank: the others lift a course across a clear gap', () => {
    expect(lexicalLedFusion(lexical, others).map((x) => x.id)).toEqual(weightedRankFusion([{ ids: [1, 2, 3, 4], weight: 1 }, ...others]).map((x) => x.id));
    expect(lexicalLedFusion(lexical, others).map((x) => x.id)).toEqual([3, 4, 1, 2, 9]);
  });

  it('with keepGaps a course stays below one the lexical ranking scores clearly higher, and close ones are still reordered', () => {
    const fused = lexicalLedFusion(
      {
        hits: [
          { id: 1, score: 1 },
          { id: 2, score: 0.95 },
          { id: 3, score: 0.6 },
          { id: 4, score: 0.58 },
        ],
      },
      [
        { ids: [2, 4, 3, 9], weight: 0.1 },
        { ids: [2, 4, 9], weight: 0.1 },
      ],
      true,
    );
    expect(fused.map((x) => x.id)).toEqual([2, 1, 4, 3, 9]);
    const scores = fused.map((x) => x.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('with keepGaps the others cannot lift a course across the gap', () => {
    expect(lexicalLedFusion(lexical, others, true).map((x) => x.id)).toEqual([1, 2, 3, 4, 9]);
  });
});

describe('standard score fusion', () => {
  // Best first, as rankings come.
  const hits = (scores: Record<number, number>) =>
    Object.entries(scores)
      .map(([id, score]) => ({ id: Number(id), score }))
      .sort((a, b) => b.score - a.score);

  it('counts how far a course stands out in a ranking, where reciprocal ranks would only count its place', () => {
    const standsOut = hits({ 1: 0.9, 2: 0.3, 3: 0.3, 4: 0.3 });
    const flat = hits({ 2: 0.51, 1: 0.5, 3: 0.49, 4: 0.48 });
    expect(
      weightedRankFusion([
        { ids: standsOut.map((h) => h.id), weight: 1 },
        { ids: flat.map((h) => h.id), weight: 1.5 },
      ])[0].id,
    ).toBe(2);
    expect(
      standardScoreFusion([
        { hits: standsOut, weight: 1 },
        { hits: flat, weight: 1.5 },
      ]).map((x) => x.id),
    ).toEqual([1, 2, 3, 4]);
  });

  it('does not depend on the scale of the scores', () => {
    const other = { hits: hits({ 3: 0.8, 1: 0.6, 2: 0.1 }), weight: 1 };
    const small = standardScoreFusion([{ hits: hits({ 1: 0.2, 2: 0.15, 3: 0.1 }), weight: 1 }, other]);
    const large = standardScoreFusion([{ hits: hits({ 1: 20, 2: 15, 3: 10 }), weight: 1 }, other]);
    expect(large.map((x) => x.id)).toEqual(small.map((x) => x.id));
  });

  it('gives a course a ranking did not return the lowest standard score of that ranking', () => {
    const fused = standardScoreFusion([
      { hits: hits({ 1: 1, 2: 0 }), weight: 1 },
      { hits: hits({ 3: 1, 1: 0 }), weight: 1 },
    ]);
    expect(fused).toEqual([
      { id: 1, score: 0 },
      { id: 3, score: 0 },
      { id: 2, score: -2 },
    ]);
  });

  it('leaves out an empty or weightless ranking, and a ranking of equal scores only adds its ids', () => {
    expect(
      standardScoreFusion([
        { hits: [], weight: 1 },
        { hits: hits({ 5: 1, 6: 1 }), weight: 1 },
        { hits: hits({ 7: 9 }), weight: 0 },
      ]).map((x) => x.id),
    ).toEqual([5, 6]);
  });
});

describe('word vectors from the npm package', () => {
  it('quantises a vector to 100 signed bytes that keep its direction', () => {
    const v = Array.from({ length: DIMENSIONS }, (_, i) => Math.sin(i + 1));
    const back = fromBytes(quantise(v));
    const n = Math.hypot(...v);
    const cos = v.reduce((s, x, i) => s + (x / n) * back[i], 0);
    expect(cos).toBeGreaterThan(0.999);
  });

  it('streams the JSON file: words of the search spelling, their frequency rank, up to the rank asked for', async () => {
    const vec = (k: number) => [...Array.from({ length: DIMENSIONS }, (_, i) => ((i * k) % 7) / 7 - 0.4), 1.5];
    const entries: Array<[string, number]> = [
      ['the', 0],
      [',', 1],
      ['python', 2],
      ['e-mail', 3],
      ['pottery', 4],
      ['zebra', 5],
    ];
    const body = `{"precision":8,"words":["the"],"vectors":{${entries.map(([w, i]) => `${JSON.stringify(w)}:[${[...vec(i + 2), i].join(',')}]`).join(',')}},"unkVector":[0]}`;
    const file = join(mkdtempSync(join(tmpdir(), 'vectors-')), 'v.json');
    writeFileSync(file, body);
    const seen: Array<[string, number]> = [];
    const count = await readWordVectors(
      file,
      (word, rank, vector) => {
        expect(vector).toHaveLength(DIMENSIONS);
        seen.push([word, rank]);
      },
      5,
    );
    expect(seen).toEqual([
      ['the', 1],
      ['python', 3],
      ['pottery', 5],
    ]);
    expect(count).toBe(3);
  });
});

describe('building an index', () => {
  it('yields to the event loop while it works, so requests are served during a rebuild', async () => {
    const many = Array.from({ length: 1000 }, (_, i) => course(i + 1, `Pottery ${i}`, 'Clay and recipes.'));
    let ranMeanwhile = false;
    setImmediate(() => (ranMeanwhile = true));
    const build = ExpandedBm25.build(many, lookup, new Set());
    expect(ranMeanwhile).toBe(false);
    const index = await build;
    expect(ranMeanwhile).toBe(true);
    expect(index.ids).toHaveLength(1000);
  });
});
