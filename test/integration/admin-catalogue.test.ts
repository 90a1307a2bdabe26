import { HttpClient } from '../support/http';
import { createAdmin, createCourse, createPartner, unique } from '../support/factories';
import { CatalogueCache } from '../../src/courses/catalogue-cache';
import { startApp, TestApp } from '../support/app';

let t: TestApp;
let admin: HttpClient;
let partner: HttpClient;
beforeAll(async () => {
  t = await startApp();
  admin = (await createAdmin(t)).http;
  partner = (await createPartner(t)).http;
});
afterAll(() => t.close());

function newCourse(overrides: Record<string, unknown> = {}) {
  return {
    title: unique('Admin course'),
    description: 'Learn things properly.',
    category: unique('AdminCat'),
    level: 'Intermediate',
    credit_cost: 15,
    tutor: { name: unique('Tutor'), bio: 'Teaches well.', organisation: 'Example University' },
    topics: [
      { title: 'Welcome', duration_minutes: 20, is_preview: true },
      { title: 'Deep dive', duration_minutes: 100, has_quiz: true },
    ],
    ...overrides,
  };
}

describe('POST /api/admin/courses', () => {
  it('creates an unpublished course with a new tutor and its topics', async () => {
    const body = newCourse();
    const res = await admin.post('/api/admin/courses', body);
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('success');
    const c = res.body.data;
    expect(c).toMatchObject({
      title: body.title,
      description: body.description,
      category: body.category,
      level: 'Intermediate',
      credit_cost: 15,
      enrolled: 0,
      rating: 0,
      published: false,
      duration: '2h',
      organisation: 'Example University',
      tutor: { name: body.tutor.name, bio: 'Teaches well.' },
      thumbnail_url: `http://localhost:3999/static/thumbnails/${c.id}.svg`,
    });
    expect(c.topics.map((x: { title: string; duration: string; has_quiz: boolean }) => [x.title, x.duration, x.has_quiz])).toEqual([
      ['Welcome', '20m', false],
      ['Deep dive', '1h 40m', true],
    ]);
    expect(c.preview).toEqual({ video_url: `http://localhost:3999/preview/courses/${c.id}`, topic_ids: [c.topics[0].id] });
  });

  it('uses an existing tutor by tutor_id and publishes at once when asked', async () => {
    const { tutor } = await createCourse(t.db);
    const res = await admin.post('/api/admin/courses', newCourse({ tutor: undefined, tutor_id: tutor.id, published: true }));
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ published: true, tutor: { id: tutor.id, name: tutor.name } });
    expect((await partner.get(`/api/courses/${res.body.data.id}`)).status).toBe(200);
  });

  it.each([
    ['level', { level: 'Expert' }],
    ['credit_cost', { credit_cost: -1 }],
    ['credit_cost', { credit_cost: 2.5 }],
    ['title', { title: '' }],
    ['title', { title: 'x'.repeat(301) }],
    ['category', { category: '   ' }],
    ['topics', { topics: [] }],
    ['topics[0].duration_minutes', { topics: [{ title: 'Zero', duration_minutes: 0 }] }],
    ['topics[0].title', { topics: [{ title: '', duration_minutes: 5 }] }],
    ['tutor.name', { tutor: { name: '', bio: '' } }],
    ['tutor_id', { tutor: undefined }],
    ['tutor', { tutor_id: 1 }],
    ['tutor_id', { tutor: undefined, tutor_id: 2_000_000_000 }],
    ['rating', { rating: 5.5 }],
    ['thumbnail_url', { thumbnail_url: 'javascript:alert(1)' }],
    ['colour', { colour: 'red' }],
  ])('refuses an invalid %s with 400 validation_failed', async (field, overrides) => {
    const res = await admin.post('/api/admin/courses', newCourse(overrides));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('refuses a new tutor that duplicates an existing one, naming its id', async () => {
    const { tutor } = await createCourse(t.db, { organisation: 'Dup Org' });
    const res = await admin.post('/api/admin/courses', newCourse({ tutor: { name: tutor.name, bio: '', organisation: 'Dup Org' } }));
    expect(res.status).toBe(400);
    expect(res.body.error.details[0]).toEqual({ field: 'tutor', message: expect.stringContaining(`id ${tutor.id}`) });
  });
});

describe('admin routes are for admin keys only', () => {
  it.each([
    ['POST', '/api/admin/courses'],
    ['GET', '/api/admin/courses/1'],
    ['PATCH', '/api/admin/courses/1'],
    ['POST', '/api/admin/courses/1/publish'],
    ['POST', '/api/admin/courses/1/unpublish'],
  ])('%s %s with a partner key → 403 admin_only', async (method, path) => {
    const res = await partner.request(method, path, { body: method === 'GET' ? undefined : {} });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('admin_only');
  });

  it('without a key → 401 missing_api_key', async () => {
    const res = await t.http.post('/api/admin/courses', newCourse());
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('missing_api_key');
  });
});

describe('publishing', () => {
  it('hides an unpublished course from partners and shows or hides it at once on publish and unpublish', async () => {
    const body = newCourse();
    const created = (await admin.post('/api/admin/courses', body)).body.data;
    const listPath = `/api/courses?category=${encodeURIComponent(body.category)}`;
    // Warm the partner-facing cache first, so a stale entry would show up below.
    expect((await partner.get(`/api/courses/${created.id}`)).body.error.code).toBe('course_not_found');
    expect((await partner.get(listPath)).body.data.total).toBe(0);

    const published = await admin.post(`/api/admin/courses/${created.id}/publish`);
    expect(published.status).toBe(200);
    expect(published.body.data.published).toBe(true);
    expect((await partner.get(`/api/courses/${created.id}`)).status).toBe(200);
    expect((await partner.get(listPath)).body.data.courses.map((c: { id: number }) => c.id)).toEqual([created.id]);

    const unpublished = await admin.post(`/api/admin/courses/${created.id}/unpublish`);
    expect(unpublished.body.data.published).toBe(false);
    const detail = await partner.get(`/api/courses/${created.id}`);
    expect(detail.status).toBe(404);
    expect(detail.body.error.code).toBe('course_not_found');
    expect((await partner.get(listPath)).body.data).toEqual({ courses: [], total: 0, page: 1, pages: 0 });
  });

  it('lets admins read an unpublished course', async () => {
    const { course } = await createCourse(t.db, { published: false });
    const res = await admin.get(`/api/admin/courses/${course.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: course.id, published: false });
  });

  it.each([
    ['GET', ''],
    ['PATCH', ''],
    ['POST', '/publish'],
    ['POST', '/unpublish'],
  ])('%s an unknown course%s → 404 course_not_found', async (method, suffix) => {
    const res = await admin.request(method, `/api/admin/courses/2000000000${suffix}`, { body: method === 'GET' ? undefined : {} });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('course_not_found');
  });

  it('refuses a non-integer id with 400 validation_failed', async () => {
    const res = await admin.get('/api/admin/courses/abc');
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'id', message: 'id must be a positive integer' }]);
  });
});

describe('PATCH /api/admin/courses/:id', () => {
  it('changes the given fields only, and partners see the change at once', async () => {
    const { course } = await createCourse(t.db, { creditCost: 10 });
    expect((await partner.get(`/api/courses/${course.id}`)).body.data.credit_cost).toBe(10);
    const res = await admin.patch(`/api/admin/courses/${course.id}`, { credit_cost: 0, level: 'Advanced', title: '  Renamed course  ' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ title: 'Renamed course', credit_cost: 0, level: 'Advanced', category: course.category, published: true });
    expect((await partner.get(`/api/courses/${course.id}`)).body.data).toMatchObject({ title: 'Renamed course', credit_cost: 0, level: 'Advanced' });
  });

  it('replaces the topics, keeping topic ids by position, and recomputes the duration', async () => {
    const { course, topics } = await createCourse(t.db, { topics: [false, true, false] });
    const res = await admin.patch(`/api/admin/courses/${course.id}`, {
      topics: [
        { title: 'New first', duration_minutes: 30, is_preview: true },
        { title: 'New second', duration_minutes: 30, has_quiz: true },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data.topics).toEqual([
      { id: topics[0].id, title: 'New first', duration: '30m', has_quiz: false },
      { id: topics[1].id, title: 'New second', duration: '30m', has_quiz: true },
    ]);
    expect(res.body.data.duration).toBe('1h');
    expect(res.body.data.preview.topic_ids).toEqual([topics[0].id]);
  });

  it('moves the course to a new tutor', async () => {
    const { course } = await createCourse(t.db);
    const name = unique('New tutor');
    const res = await admin.patch(`/api/admin/courses/${course.id}`, { tutor: { name, bio: 'Fresh.' } });
    expect(res.status).toBe(200);
    expect(res.body.data.tutor).toMatchObject({ name, bio: 'Fresh.' });
    expect((await partner.get(`/api/courses/${course.id}`)).body.data.tutor.name).toBe(name);
  });

  it('refuses null for a required field and an empty topic list', async () => {
    const { course } = await createCourse(t.db);
    const res = await admin.patch(`/api/admin/courses/${course.id}`, { title: null, topics: [] });
    expect(res.status).toBe(400);
    // null is refused wherever the document does not say nullable, reported with the other fields' errors.
    expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['title', 'topics']);
    const nulls = await admin.patch(`/api/admin/courses/${course.id}`, { title: null });
    expect(nulls.status).toBe(400);
    expect(nulls.body.error.details).toEqual([{ field: 'title', message: 'title cannot be null' }]);
  });

  it('resets the thumbnail to the generated one with null', async () => {
    const { course } = await createCourse(t.db);
    const set = await admin.patch(`/api/admin/courses/${course.id}`, { thumbnail_url: 'https://cdn.example.com/a.png' });
    expect(set.body.data.thumbnail_url).toBe('https://cdn.example.com/a.png');
    const reset = await admin.patch(`/api/admin/courses/${course.id}`, { thumbnail_url: null });
    expect(reset.body.data.thumbnail_url).toBe(`http://localhost:3999/static/thumbnails/${course.id}.svg`);
  });
});

describe('CatalogueCache', () => {
  it('runs one load for concurrent misses of a key and does not keep failures', async () => {
    const cache = t.app.get(CatalogueCache);
    const key = unique('k');
    let loads = 0;
    const load = async () => {
      loads++;
      await new Promise((r) => setTimeout(r, 20));
      return loads;
    };
    const values = await Promise.all(Array.from({ length: 10 }, () => cache.getOrLoad(key, load)));
    expect(values).toEqual(Array(10).fill(1));
    expect(loads).toBe(1);

    const failing = unique('f');
    await expect(cache.getOrLoad(failing, () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    await expect(cache.getOrLoad(failing, async () => 'recovered')).resolves.toBe('recovered');
  });

  it('does not keep a load that was in flight when the catalogue changed', async () => {
    const cache = t.app.get(CatalogueCache);
    const key = unique('k');
    let release!: () => void;
    const stale = cache.getOrLoad(key, () => new Promise<string>((r) => (release = () => r('stale'))));
    await cache.invalidate();
    release();
    await stale;
    await expect(cache.getOrLoad(key, async () => 'fresh')).resolves.toBe('fresh');
  });
});
