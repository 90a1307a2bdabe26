import { createAdmin, createCourse, unique } from '../support/factories';
import { startApp, TestApp } from '../support/app';
import { HttpClient } from '../support/http';

let t: TestApp;
let admin: HttpClient;
beforeAll(async () => {
  t = await startApp();
  admin = (await createAdmin(t)).http;
});
afterAll(() => t.close());

const NASTY = `<script>alert("x")</script> & 'quotes'`;

describe('GET /static/thumbnails/:id.svg', () => {
  it('draws an SVG card with the title and category, served as a cacheable image', async () => {
    const category = unique('Design');
    const { course } = await createCourse(t.db, { title: 'Colour theory for everyone', category });
    const res = await t.http.get(`/static/thumbnails/${course.id}.svg`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.text).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(res.text).toContain('Colour theory for everyone');
    expect(res.text).toContain(category);
  });

  it('gives courses of one category one colour', async () => {
    const category = unique('Same');
    const a = (await createCourse(t.db, { category })).course;
    const b = (await createCourse(t.db, { category })).course;
    const fill = (svg: string) => /<rect width="640" height="360" fill="([^"]+)"/.exec(svg)?.[1];
    const [sa, sb] = await Promise.all([t.http.get(`/static/thumbnails/${a.id}.svg`), t.http.get(`/static/thumbnails/${b.id}.svg`)]);
    expect(fill(sa.text)).toBeDefined();
    expect(fill(sa.text)).toBe(fill(sb.text));
  });

  it('escapes markup in the title and category', async () => {
    const { course } = await createCourse(t.db, { title: NASTY, category: `${unique('C')} <b>&` });
    const res = await t.http.get(`/static/thumbnails/${course.id}.svg`);
    expect(res.text).not.toContain('<script>');
    expect(res.text).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(res.text).toContain('&lt;b&gt;&amp;');
  });

  it.each(['2000000000.svg', 'abc.svg', '1.png', '0.svg'])('answers %s with a plain 404', async (file) => {
    const res = await t.http.get(`/static/thumbnails/${file}`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  });

  it('is not served for an unpublished course', async () => {
    const { course } = await createCourse(t.db, { published: false });
    expect((await t.http.get(`/static/thumbnails/${course.id}.svg`)).status).toBe(404);
  });
});

describe('GET /static/avatars/:id.svg', () => {
  it("draws the tutor's initials on a coloured circle", async () => {
    const { tutor } = await createCourse(t.db, { tutorName: `Ada ${unique('Lovelace')}` });
    const res = await t.http.get(`/static/avatars/${tutor.id}.svg`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(res.text).toContain('<circle');
    expect(res.text).toMatch(/>AL<\/text>/);
  });

  it('escapes the name and answers unknown tutors with a plain 404', async () => {
    const { tutor } = await createCourse(t.db, { tutorName: `${NASTY} ${unique('t')}` });
    const res = await t.http.get(`/static/avatars/${tutor.id}.svg`);
    expect(res.text).not.toContain('<script>');
    expect((await t.http.get('/static/avatars/2000000000.svg')).status).toBe(404);
  });
});

describe('GET /preview/courses/:id', () => {
  it('shows the title, description, preview topics and a labelled video placeholder', async () => {
    const { course, topics } = await createCourse(t.db, { description: 'All about <tags> & more.', topics: [false, true, false] });
    const res = await t.http.get(`/preview/courses/${course.id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=60');
    expect(res.text).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(res.text).toContain(`<h1>${course.title}</h1>`);
    expect(res.text).toContain('All about &lt;tags&gt; &amp; more.');
    expect(res.text).toContain('Video placeholder');
    expect(res.text).toContain(topics[0].title); // the preview topic
    expect(res.text).not.toContain(topics[1].title);
  });

  it('escapes every text it shows', async () => {
    const { course } = await createCourse(t.db, { title: NASTY });
    const res = await t.http.get(`/preview/courses/${course.id}`);
    expect(res.text).not.toContain('<script>');
    expect(res.text).toContain('<h1>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;</h1>');
  });

  it('links a real preview video when the course has one', async () => {
    const { course } = await createCourse(t.db);
    await admin.patch(`/api/admin/courses/${course.id}`, { preview_video_url: 'https://video.example.com/a?x=1&y=2' });
    const res = await t.http.get(`/preview/courses/${course.id}`);
    expect(res.text).toContain('href="https://video.example.com/a?x=1&amp;y=2"');
  });

  it('is 404 for unpublished and unknown courses, and disappears at once on unpublish', async () => {
    const { course } = await createCourse(t.db);
    expect((await t.http.get(`/preview/courses/${course.id}`)).status).toBe(200);
    await admin.post(`/api/admin/courses/${course.id}/unpublish`);
    const gone = await t.http.get(`/preview/courses/${course.id}`);
    expect(gone.status).toBe(404);
    expect(gone.headers.get('content-type')).toMatch(/^text\/plain/);
    expect((await t.http.get(`/static/thumbnails/${course.id}.svg`)).status).toBe(404);
    expect((await t.http.get('/preview/courses/abc')).status).toBe(404);
  });

  it('is served outside /api without a key', async () => {
    expect((await t.http.get('/api/preview/courses/1')).status).toBe(404);
  });
});
