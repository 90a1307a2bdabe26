import { HttpClient } from '../support/http';
import { createCourse, createPartner, unique } from '../support/factories';
import { startApp, TestApp } from '../support/app';

let t: TestApp;
let api: HttpClient;
beforeAll(async () => {
  t = await startApp();
  api = (await createPartner(t)).http;
});
afterAll(() => t.close());

describe('GET /api/courses', () => {
  it('lists published courses of a category in the spec shape with the success envelope', async () => {
    const category = unique('Cat');
    const { course, tutor } = await createCourse(t.db, { category, enrolled: 50, rating: 4.7, durationMinutes: 150, creditCost: 25 });
    await createCourse(t.db, { category, enrolled: 10 });
    const res = await api.get(`/api/courses?category=${category}`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.data).toMatchObject({ total: 2, page: 1, pages: 1 });
    expect(res.body.data.courses[0]).toEqual({
      id: course.id,
      title: course.title,
      category,
      level: 'Beginner',
      duration: '3h',
      rating: 4.7,
      enrolled: 50,
      credit_cost: 25,
      thumbnail_url: `http://localhost:3999/static/thumbnails/${course.id}.svg`,
      tutor: { name: tutor.name, avatar: `http://localhost:3999/static/avatars/${tutor.id}.svg` },
    });
  });

  it('matches the category case-insensitively and exactly', async () => {
    const category = unique('Mixed Case');
    await createCourse(t.db, { category });
    expect((await api.get(`/api/courses?category=${encodeURIComponent(category.toUpperCase())}`)).body.data.total).toBe(1);
    expect((await api.get(`/api/courses?category=${encodeURIComponent(category.slice(0, -1))}`)).body.data.total).toBe(0);
  });

  it('filters by level', async () => {
    const category = unique('Cat');
    await createCourse(t.db, { category, level: 'Advanced' });
    await createCourse(t.db, { category, level: 'Beginner' });
    const res = await api.get(`/api/courses?category=${category}&level=Advanced`);
    expect(res.body.data.total).toBe(1);
    expect(res.body.data.courses[0].level).toBe('Advanced');
  });

  it('hides unpublished courses from the list', async () => {
    const category = unique('Cat');
    await createCourse(t.db, { category, published: false });
    const res = await api.get(`/api/courses?category=${category}`);
    expect(res.body.data).toEqual({ courses: [], total: 0, page: 1, pages: 0 });
  });

  it('paginates, and a page past the end is 200 with an empty list', async () => {
    const category = unique('Cat');
    for (let i = 0; i < 5; i++) await createCourse(t.db, { category, enrolled: 100 - i });
    const p1 = await api.get(`/api/courses?category=${category}&limit=2&page=1`);
    const p3 = await api.get(`/api/courses?category=${category}&limit=2&page=3`);
    const p4 = await api.get(`/api/courses?category=${category}&limit=2&page=4`);
    expect(p1.body.data).toMatchObject({ total: 5, page: 1, pages: 3 });
    expect(p1.body.data.courses.map((c: { enrolled: number }) => c.enrolled)).toEqual([100, 99]);
    expect(p3.body.data.courses).toHaveLength(1);
    expect(p4.status).toBe(200);
    expect(p4.body.data).toEqual({ courses: [], total: 5, page: 4, pages: 3 });
  });

  it('defaults to 20 per page and accepts 100', async () => {
    const res = await api.get('/api/courses?limit=100');
    expect(res.status).toBe(200);
    expect(res.body.data.courses.length).toBeLessThanOrEqual(100);
    const def = await api.get('/api/courses');
    expect(def.body.data.courses.length).toBeLessThanOrEqual(20);
  });

  it('sorts by rating, title and newest', async () => {
    const category = unique('Cat');
    const a = await createCourse(t.db, { category, rating: 3.1, title: `B ${unique()}` });
    const b = await createCourse(t.db, { category, rating: 4.9, title: `A ${unique()}` });
    const ids = async (sort: string) => (await api.get(`/api/courses?category=${category}&sort=${sort}`)).body.data.courses.map((c: { id: number }) => c.id);
    expect(await ids('rating')).toEqual([b.course.id, a.course.id]);
    expect(await ids('title')).toEqual([b.course.id, a.course.id]);
    expect(await ids('newest')).toEqual([b.course.id, a.course.id]);
  });

  it.each([
    ['limit=101', 'limit'],
    ['limit=0', 'limit'],
    ['limit=abc', 'limit'],
    ['page=0', 'page'],
    ['page=1.5', 'page'],
    ['level=Expert', 'level'],
    ['sort=cheapest', 'sort'],
    ['unknown=1', 'unknown'],
  ])('rejects %s with 400 validation_failed naming the field', async (qs, field) => {
    const res = await api.get(`/api/courses?${qs}`);
    expect(res.status).toBe(400);
    expect(res.body.status).toBe('error');
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
  });
});

describe('GET /api/courses/:id', () => {
  it('returns the detail with topics in order, tutor and preview', async () => {
    const { course, tutor, topics } = await createCourse(t.db, { topics: [false, true, true], organisation: 'MIT' });
    const res = await api.get(`/api/courses/${course.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'success',
      data: {
        id: course.id,
        title: course.title,
        description: course.description,
        category: course.category,
        level: 'Beginner',
        rating: 4.5,
        thumbnail_url: `http://localhost:3999/static/thumbnails/${course.id}.svg`,
        topics: [
          { id: topics[0].id, title: topics[0].title, duration: '45m', has_quiz: false },
          { id: topics[1].id, title: topics[1].title, duration: '1h 15m', has_quiz: true },
          { id: topics[2].id, title: topics[2].title, duration: '1h 45m', has_quiz: true },
        ],
        tutor: { id: tutor.id, name: tutor.name, bio: tutor.bio },
        credit_cost: 10,
        enrolled: 0,
        preview: { video_url: `http://localhost:3999/preview/courses/${course.id}`, topic_ids: [topics[0].id] },
      },
    });
  });

  it('answers 404 course_not_found for an unpublished course', async () => {
    const { course } = await createCourse(t.db, { published: false });
    const res = await api.get(`/api/courses/${course.id}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('course_not_found');
  });

  it('answers 404 course_not_found for an unknown id', async () => {
    const res = await api.get('/api/courses/2147483000');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('course_not_found');
  });

  it('answers 400 for a non-integer id', async () => {
    const res = await api.get('/api/courses/abc');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_failed', details: [{ field: 'id', message: expect.any(String) }] });
  });
});
