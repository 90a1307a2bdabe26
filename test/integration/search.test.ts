import { randomBytes } from 'node:crypto';
import { HttpClient } from '../support/http';
import { createCourse, createKey, createPartner, CourseSpec } from '../support/factories';
import { startApp, TestApp } from '../support/app';

let t: TestApp;
let api: HttpClient;
// This file pins the lexical ranking (keywords, filters, typos, synonyms), so the embedded semantic engine is off here:
// with it on, results would also depend on when its index is built.
// The engine and its fusion are tested in search-semantic-engine and search-real-catalogue.
beforeAll(async () => {
  t = await startApp({ SEARCH_EMBEDDED_ENGINE: 'false' });
  api = (await createPartner(t)).http;
});
afterAll(() => t.close());

/** A made-up word no other test uses, so each test sees only its own courses. */
const word = () =>
  `zq${randomBytes(6)
    .toString('hex')
    .replace(/\d/g, (d) => 'abcdefghij'[Number(d)])}`;
const search = (query: string, limit?: number) => api.post('/api/search', { query, ...(limit ? { limit } : {}) });
const ids = (res: { body: any }) => res.body.data.results.map((r: { id: number }) => r.id);
const course = (spec: CourseSpec) => createCourse(t.db, spec);

describe('POST /api/search validation', () => {
  it.each([
    ['a blank query', { query: '   ' }, 'query'],
    ['a missing query', {}, 'query'],
    ['a query over 500 characters', { query: 'a'.repeat(501) }, 'query'],
    ['limit 0', { query: 'python', limit: 0 }, 'limit'],
    ['limit 51', { query: 'python', limit: 51 }, 'limit'],
    ['a non-integer limit', { query: 'python', limit: 2.5 }, 'limit'],
    ['an unknown field', { query: 'python', sort: 'new' }, 'sort'],
  ])('rejects %s with 400 validation_failed', async (_, body, field) => {
    const res = await api.post('/api/search', body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('accepts a 500-character query and limit 50', async () => {
    const res = await api.post('/api/search', { query: `python ${'a'.repeat(493)}`, limit: 50 });
    expect(res.status).toBe(200);
  });
});

describe('POST /api/search results', () => {
  it('answers the contract envelope with course list items and a score', async () => {
    const w = word();
    const { course: c, tutor } = await course({ title: `Gardening ${w}`, enrolled: 5, rating: 4.6, durationMinutes: 120, creditCost: 15 });
    const res = await search(w);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.data).toMatchObject({ query: w, engine: 'lexical', total: 1, interpreted: { text: w } });
    const item = res.body.data.results[0];
    expect(item).toEqual({
      id: c.id,
      title: c.title,
      category: c.category,
      level: 'Beginner',
      duration: '2h',
      rating: 4.6,
      enrolled: 5,
      credit_cost: 15,
      thumbnail_url: `http://localhost:3999/static/thumbnails/${c.id}.svg`,
      tutor: { name: tutor.name, avatar: `http://localhost:3999/static/avatars/${tutor.id}.svg` },
      score: expect.any(Number),
    });
    const list = await api.get(`/api/courses?category=${encodeURIComponent(c.category)}`);
    expect(list.body.data.courses[0]).toEqual({ ...item, score: undefined, rating: 4.6 });
  });

  it('returns published courses only', async () => {
    const w = word();
    const { course: shown } = await course({ title: `Pottery ${w}` });
    await course({ title: `Pottery ${w} draft`, published: false });
    const res = await search(`pottery ${w}`);
    expect(ids(res)).toEqual([shown.id]);
    expect(res.body.data.total).toBe(1);
  });

  it('ranks a title match above a description match and honours limit', async () => {
    const w = word();
    const { course: inDescription } = await course({ title: 'Weaving basics', description: `All about ${w} in depth.` });
    const { course: inTitle } = await course({ title: `The ${w} handbook` });
    await course({ title: `More ${w}` });
    const res = await search(w, 2);
    expect(ids(res)[0]).toBe(inTitle.id);
    expect(ids(res)).toHaveLength(2);
    const all = await search(w, 10);
    expect(ids(all)[2]).toBe(inDescription.id);
    expect(all.body.data.total).toBe(3);
  });
});

describe('POST /api/search follows catalogue changes at once', () => {
  const update = (sql: string, params: unknown[]) => t.db.query(sql, params);

  it('unpublishing hides a course and publishing it again shows it', async () => {
    const w = word();
    const { course: c } = await course({ title: `Glassblowing ${w}` });
    await update('UPDATE courses SET published = false WHERE id = $1', [c.id]);
    expect((await search(`glassblowing ${w}`)).body.data).toMatchObject({ results: [], total: 0 });
    await update('UPDATE courses SET published = true WHERE id = $1', [c.id]);
    expect(ids(await search(`glassblowing ${w}`))).toEqual([c.id]);
  });

  it('filters see a new price, level, duration, category, organisation and tutor name', async () => {
    const w = word();
    const org = `${word()} Institute`;
    const { course: c, tutor } = await course({ title: `Masonry ${w}`, creditCost: 30, level: 'Advanced', durationMinutes: 900 });
    // Nothing fits the filters said in words: they are relaxed, least important first, until the course matches.
    const before = await search(`free ${w} for beginners under 5 hours`);
    expect(ids(before)).toEqual([c.id]);
    expect(before.body.data.relaxed).toEqual(['max_duration_hours', 'max_credit_cost', 'level']);
    await update(`UPDATE courses SET credit_cost = 0, level = 'Beginner', duration_minutes = 240, category = 'Math', organisation = $2 WHERE id = $1`, [
      c.id,
      org,
    ]);
    const after = await search(`free ${w} for beginners under 5 hours`);
    expect(ids(after)).toEqual([c.id]);
    expect(after.body.data.relaxed).toBeUndefined();
    expect(ids(await search(`maths ${w}`))).toEqual([c.id]);
    expect(ids(await search(`${w} from ${org.split(' ')[0]}`))).toEqual([c.id]);
    const renamed = `Grace ${word()}`;
    await update('UPDATE tutors SET name = $2 WHERE id = $1', [tutor.id, renamed]);
    const byTutor = await search(`${w} taught by ${renamed}`);
    expect(byTutor.body.data.interpreted.organisation).toBe(renamed);
    expect(ids(byTutor)).toEqual([c.id]);
  });

  it('a course that gets popular moves up among equal matches', async () => {
    const w = word();
    const { course: first } = await course({ title: `Origami ${w}`, enrolled: 10 });
    const { course: second } = await course({ title: `Origami ${w}`, enrolled: 5 });
    expect(ids(await search(`origami ${w}`))).toEqual([first.id, second.id]);
    await update('UPDATE courses SET enrolled = 5000 WHERE id = $1', [second.id]);
    expect(ids(await search(`origami ${w}`))).toEqual([second.id, first.id]);
  });
});

describe('POST /api/search understands filters said in words', () => {
  it.each([
    ['for beginners', 'Beginner'],
    ['introductory', 'Beginner'],
    ['intermediate', 'Intermediate'],
    ['advanced', 'Advanced'],
    ['for experts', 'Advanced'],
  ] as const)('"%s" filters on level %s and is not ranked', async (phrase, level) => {
    const w = word();
    const { course: match } = await course({ title: `Knitting ${w}`, level });
    await course({ title: `Knitting ${w} other`, level: level === 'Beginner' ? 'Advanced' : 'Beginner' });
    const res = await search(`${w} ${phrase}`);
    expect(res.body.data.interpreted).toEqual({ level, text: w });
    expect(ids(res)).toEqual([match.id]);
  });

  it('"free" keeps courses costing no credits; "under 20 credits" those costing at most 20', async () => {
    const w = word();
    const { course: free } = await course({ title: `Baking ${w}`, creditCost: 0 });
    const { course: twenty } = await course({ title: `Baking ${w} two`, creditCost: 20 });
    await course({ title: `Baking ${w} three`, creditCost: 25 });
    const res = await search(`free ${w}`);
    expect(res.body.data.interpreted).toEqual({ max_credit_cost: 0, text: w });
    expect(ids(res)).toEqual([free.id]);
    const under = await search(`${w} under 20 credits`);
    expect(under.body.data.interpreted).toEqual({ max_credit_cost: 20, text: w });
    expect(ids(under).sort()).toEqual([free.id, twenty.id].sort());
  });

  it.each([
    ['under 5 hours', 5],
    ['less than 3 hours', 3],
    ['short', 10],
    ['over a weekend', 16],
  ])('"%s" becomes max_duration_hours %d', async (phrase, hours) => {
    const w = word();
    const { course: fits } = await course({ title: `Sailing ${w}`, durationMinutes: hours * 60 });
    await course({ title: `Sailing ${w} long`, durationMinutes: hours * 60 + 1 });
    const res = await search(`${phrase} ${w}`);
    expect(res.body.data.interpreted).toEqual({ max_duration_hours: hours, text: w });
    expect(ids(res)).toEqual([fits.id]);
  });

  it('a level or price word that the question says of something else is ranked, not a filter', async () => {
    const w = word();
    const { course: beginner } = await course({ title: `Forensic ${w}`, level: 'Beginner', creditCost: 15 });
    const res = await search(`how do lab experts check ${w} stains when the free tool fails`);
    expect(res.body.data.interpreted.level).toBeUndefined();
    expect(res.body.data.interpreted.max_credit_cost).toBeUndefined();
    expect(res.body.data.relaxed).toBeUndefined();
    expect(ids(res)).toContain(beginner.id);
  });

  it('"courses that are free" and "who is a beginner" still filter', async () => {
    const w = word();
    const { course: free } = await course({ title: `Pottery ${w}`, creditCost: 0, level: 'Beginner' });
    await course({ title: `Pottery ${w} paid`, creditCost: 20, level: 'Beginner' });
    await course({ title: `Pottery ${w} advanced`, creditCost: 0, level: 'Advanced' });
    const res = await search(`${w} courses that are free for someone who is a beginner`);
    expect(res.body.data.interpreted).toMatchObject({ level: 'Beginner', max_credit_cost: 0 });
    expect(ids(res)).toEqual([free.id]);
  });

  it('a category name or synonym becomes the category filter', async () => {
    const w = word();
    const { course: maths } = await course({ title: `Puzzles ${w}`, category: 'Math' });
    await course({ title: `Puzzles ${w}`, category: 'History' });
    const res = await search(`maths ${w}`);
    expect(res.body.data.interpreted).toEqual({ category: 'Math', text: w });
    expect(ids(res)).toEqual([maths.id]);
  });

  it('a category name inside a subject some course of another category names is ranked, not a filter', async () => {
    const w = word();
    const { course: design } = await course({ title: `Lantern design ${w}`, category: 'Design' });
    const { course: art } = await course({ title: `Lantern design ${w}`, category: 'Art & Culture' });
    const { data } = (await search(`lantern design ${w}`)).body as { data: { interpreted: unknown; results: Array<{ id: number }> } };
    expect(data.interpreted).toEqual({ text: `lantern design ${w}` });
    expect(data.results.map((r) => r.id).sort()).toEqual([design.id, art.id].sort());
  });

  it('a category name read from a corrected word is ranked, not a filter', async () => {
    const w = word();
    const { course: maths } = await course({ title: `Mathematics ${w}`, category: 'Math' });
    const { course: history } = await course({ title: `Mathematics ${w}`, category: 'History' });
    const { data } = (await search(`mathematcs ${w}`)).body as { data: { interpreted: unknown; results: Array<{ id: number }> } };
    expect(data.interpreted).toEqual({ corrections: { mathematcs: 'mathematics' }, text: `mathematics ${w}` });
    expect(data.results.map((r) => r.id).sort()).toEqual([maths.id, history.id].sort());
  });

  it('a category name right after a corrected word ends the misspelt term: ranked, not a filter', async () => {
    const w = word();
    const { course: maths } = await course({ title: `${w} Mathematics`, category: 'Math' });
    // Outside Math, no course says "<word> mathematics": the category name is no part of a phrase named elsewhere.
    const { course: history } = await course({ title: `Mathematics and ${w}`, category: 'History' });
    // The random word with two different neighbouring letters swapped: corrected back to itself.
    const i = [...w].findIndex((ch, k) => k >= 3 && w[k + 1] && ch !== w[k + 1]);
    const misspelt = w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2);
    const { data } = (await search(`${misspelt} mathematics`)).body as { data: { interpreted: unknown; results: Array<{ id: number }> } };
    expect(data.interpreted).toEqual({ corrections: { [misspelt]: w }, text: `${w} mathematics` });
    // Both name every word; the Math filter would hide the History course.
    expect(new Set(data.results.slice(0, 2).map((r) => r.id))).toEqual(new Set([maths.id, history.id]));
  });

  it('"from <organisation>" and "by <tutor>" become the organisation filter', async () => {
    const w = word();
    const org = `${word()} University`;
    const { course: fromOrg } = await course({ title: `Ethics ${w}`, organisation: org });
    const { course: byTutor, tutor } = await course({ title: `Ethics ${w}`, tutorName: `Ada ${word()}` });
    await course({ title: `Ethics ${w}` });
    const res = await search(`${w} from ${org.split(' ')[0]}`);
    expect(res.body.data.interpreted).toEqual({ organisation: org, text: w });
    expect(ids(res)).toEqual([fromOrg.id]);
    const byRes = await search(`${w} taught by ${tutor.name}`);
    expect(byRes.body.data.interpreted).toEqual({ organisation: tutor.name, text: w });
    expect(ids(byRes)).toEqual([byTutor.id]);
  });

  it('keeps "from" words that name no organisation in the ranked text', async () => {
    const w = word();
    const { course: c } = await course({ title: `Cooking from ${w}` });
    const res = await search(`cooking from ${w}`);
    expect(res.body.data.interpreted.organisation).toBeUndefined();
    expect(ids(res)).toContain(c.id);
  });

  it('combines filters and ranks the rest', async () => {
    const w = word();
    const { course: c } = await course({ title: `Painting ${w}`, level: 'Beginner', creditCost: 0, durationMinutes: 240 });
    await course({ title: `Painting ${w}`, level: 'Beginner', creditCost: 10, durationMinutes: 240 });
    const res = await search(`free ${w} course for beginners under 5 hours`);
    expect(res.body.data.interpreted).toEqual({ level: 'Beginner', max_credit_cost: 0, max_duration_hours: 5, text: w });
    expect(ids(res)).toEqual([c.id]);
  });
});

describe('POST /api/search tolerates typos and knows synonyms', () => {
  it('corrects a misspelt word to the catalogue word', async () => {
    const w = word();
    const { course: c } = await course({ title: `Kayaking ${w}`, description: 'Paddle safely.' });
    const i = [...w].findIndex((ch, k) => k >= 3 && w[k + 1] && ch !== w[k + 1]);
    const misspelt = w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2);
    const res = await search(misspelt);
    expect(res.body.data.interpreted.corrections).toEqual({ [misspelt]: w });
    expect(ids(res)).toEqual([c.id]);
  });

  it('puts the courses naming a corrected subject before those naming every word only in their descriptions', async () => {
    const w = word();
    const other = word();
    const { course: named } = await course({ title: `Orchestration ${w}`, description: 'Clusters.' });
    const { course: both } = await course({ title: `Rollouts ${other}`, description: `Rollouts with ${w} and ${other}.` });
    // The other word is mostly said in passing, as "deployment" is next to "kubernetes": the corrected word is the subject.
    for (const n of [1, 2, 3]) await course({ title: `Operations ${n}`, description: `Daily ${other} of services.` });
    const i = [...w].findIndex((ch, k) => k >= 3 && w[k + 1] && ch !== w[k + 1]);
    const misspelt = w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2);
    const { data } = (await search(`${misspelt} ${other}`)).body as { data: { results: Array<{ id: number }> } };
    expect(data.results.slice(0, 2).map((r) => r.id)).toEqual([named.id, both.id]);
  });

  it('puts the courses naming the subject first, not the rarest corrected word', async () => {
    const subject = word();
    const passing = word();
    const courses = [];
    for (const n of [1, 2, 3, 4]) courses.push((await course({ title: `${subject} ${n}`, description: 'Foundations.' })).course.id);
    // Said in passing by many descriptions, named by one title: rarer in titles than the subject, and no subject.
    const { course: aside } = await course({ title: `Notes on ${passing}`, description: 'Notes.' });
    for (const n of [1, 2, 3, 4, 5, 6]) await course({ title: `Workshop ${n}`, description: `Weekly ${passing} for teams.` });
    const slip = (w: string) => {
      const i = [...w].findIndex((ch, k) => k >= 3 && w[k + 1] && ch !== w[k + 1]);
      return w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2);
    };
    const { data } = (await search(`${slip(subject)} ${slip(passing)}`)).body as { data: { results: Array<{ id: number }> } };
    expect(new Set(data.results.slice(0, 4).map((r) => r.id))).toEqual(new Set(courses));
    expect(data.results.map((r) => r.id)).toContain(aside.id);
  });

  it('takes the subject among the corrected words: a word typed right beside them is said about it', async () => {
    const subject = word();
    const other = word();
    const named = [];
    for (const n of [1, 2]) named.push((await course({ title: `${subject} ${n}`, description: 'Foundations.' })).course.id);
    // More titles name the other word, in as large a share of its courses: counted alone, it would be the subject.
    for (const n of [1, 2, 3, 4]) await course({ title: `${other} ${n}`, description: 'Foundations.' });
    const i = [...subject].findIndex((ch, k) => k >= 3 && subject[k + 1] && ch !== subject[k + 1]);
    const misspelt = subject.slice(0, i) + subject[i + 1] + subject[i] + subject.slice(i + 2);
    const { data } = (await search(`${misspelt} and ${other}`)).body as { data: { results: Array<{ id: number }> } };
    expect(new Set(data.results.slice(0, 2).map((r) => r.id))).toEqual(new Set(named));
  });

  it('reads two words typed without the space between them as both', async () => {
    const a = word();
    const b = word();
    const { course: both } = await course({ title: `${a} ${b} Fundamentals` });
    const res = await search(`${a}${b}`);
    expect(res.body.data.interpreted).toEqual({ corrections: { [`${a}${b}`]: `${a} ${b}` }, text: `${a} ${b}` });
    expect(ids(res)[0]).toBe(both.id);
  });

  it('finds JavaScript and Python courses under "javscript" and "pyhton"', async () => {
    const w = word();
    const { course: js } = await course({ title: `JavaScript for ${w}` });
    const { course: py } = await course({ title: `Python for ${w}` });
    const jsRes = await search(`javscript ${w}`);
    expect(jsRes.body.data.interpreted.corrections).toEqual({ javscript: 'javascript' });
    expect(ids(jsRes)[0]).toBe(js.id);
    const pyRes = await search(`pyhton ${w}`);
    expect(pyRes.body.data.interpreted.corrections).toEqual({ pyhton: 'python' });
    expect(ids(pyRes)[0]).toBe(py.id);
  });

  it.each([
    ['ml', 'Machine Learning Foundations'],
    ['coding', 'Programming Essentials'],
    ['web dev', 'Web Development Bootcamp'],
  ])('"%s" finds "%s"', async (said, title) => {
    const w = word();
    const { course: c } = await course({ title, description: `Part of the ${w} series.` });
    await course({ title: 'Pottery for everyone', description: `Part of the ${w} series.` });
    const res = await search(`${said} ${w}`);
    expect(ids(res)[0]).toBe(c.id);
  });
});

describe('POST /api/search keys and plans', () => {
  it('is not in the starter plan: 401 endpoint_not_in_plan', async () => {
    const starter = await createPartner(t, { plan: 'starter' });
    const res = await starter.http.post('/api/search', { query: 'python' });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('endpoint_not_in_plan');
  });

  it('needs a key', async () => {
    const res = await t.http.post('/api/search', { query: 'python' });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('missing_api_key');
  });

  it('serves the same published catalogue to every partner and both modes', async () => {
    const w = word();
    const { course: c } = await course({ title: `Archery ${w}` });
    const growth = await createPartner(t, { plan: 'growth' });
    const live = await createKey(t, growth.partnerId, 'live');
    for (const client of [growth.http, live.http, api]) {
      const res = await client.post('/api/search', { query: w });
      expect(res.status).toBe(200);
      expect(ids(res)).toEqual([c.id]);
    }
  });
});
