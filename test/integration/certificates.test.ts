import { dirname, join } from 'node:path';
import jsQR from 'jsqr';
import { PDFParse } from 'pdf-parse';
import { PNG } from 'pngjs';
import { UsageLimiter } from '../../src/auth/usage-limiter';
import { startApp, TestApp } from '../support/app';
import { createAdmin, createCourse, createKey, createPartner, CreatedCourse, CreatedPartner, unique } from '../support/factories';
import { HttpClient } from '../support/http';
import { issueCertificate } from './certificate.helpers';

// pdf.js loads its worker with a dynamic import(), which jest (CommonJS) cannot run: hand it the worker module.
(globalThis as { pdfjsWorker?: unknown }).pdfjsWorker ??= require(join(dirname(require.resolve('pdf-parse')), 'pdf.worker.mjs'));

const CERT_ID = /^TST-\d{4}-[0-9A-HJKMNP-TV-Z]{10}$/;
const VERIFY_LIMIT = 5;

let t: TestApp;
let partner: CreatedPartner;
let other: CreatedPartner;
let admin: CreatedPartner;
let ipCounter = 0;

beforeAll(async () => {
  // Behind a trusted proxy each test can be a different client IP, so the per-IP verification limit stays per test.
  t = await startApp({ TRUST_PROXY: '1', VERIFY_LIMIT_PER_MINUTE: String(VERIFY_LIMIT) });
  partner = await createPartner(t);
  other = await createPartner(t);
  admin = await createAdmin(t);
});
afterAll(() => t.close());

function clientIp(): string {
  ipCounter += 1;
  return `198.51.${Math.floor(Math.random() * 250)}.${ipCounter % 250}`;
}

/** Admin acting for a partner in test mode. */
function asAdminFor(p: CreatedPartner) {
  return { headers: { 'X-Partner-Id': String(p.partnerId), 'X-Partner-Mode': p.mode } };
}

interface Learner {
  userId: number;
  externalUserId: string;
  name: string;
  email: string;
  enrollmentId: number;
  course: CreatedCourse;
}

/** A registered learner enrolled (without credits) in a fresh course with topics [false, true, false] unless told. */
async function enrolledLearner(api: HttpClient, topics?: boolean[]): Promise<Learner> {
  const course = await createCourse(t.db, { topics, title: unique('Data Science') });
  const externalUserId = unique('ext');
  const name = `Ada ${unique('Lovelace')}`;
  const email = `${unique('ada')}@example.com`;
  const user = await api.post('/api/users', { external_user_id: externalUserId, name, email });
  expect(user.status).toBe(201);
  const enrolled = await api.post('/api/enroll', { user_id: user.body.data.id, course_id: course.course.id, deduct_credits: false });
  expect(enrolled.status).toBe(201);
  return { userId: user.body.data.id, externalUserId, name, email, enrollmentId: enrolled.body.data.enrollment_id, course };
}

async function progress(api: HttpClient, l: Learner, topicIndex: number, quizPassed?: boolean) {
  const res = await api.post(`/api/enrollments/${l.enrollmentId}/progress`, {
    topic_id: l.course.topics[topicIndex].id,
    ...(quizPassed === undefined ? {} : { quiz_passed: quizPassed }),
  });
  expect(res.status).toBe(200);
  return res.body.data;
}

/** Completes every topic, passing quizzes only when told; returns the last progress result. */
async function completeTopics(api: HttpClient, l: Learner, passQuizzes: boolean) {
  let last: Record<string, unknown> = {};
  for (let i = 0; i < l.course.topics.length; i++) last = await progress(api, l, i, l.course.topics[i].hasQuiz ? passQuizzes : undefined);
  return last;
}

async function eventsOf(partnerId: number, type: string, certificateId: string) {
  return t.db.query(`SELECT type, mode, payload, occurred_at FROM events WHERE partner_id = $1 AND type = $2 AND payload->>'certificate_id' = $3`, [
    partnerId,
    type,
    certificateId,
  ]);
}

function verify(id: string, ip = clientIp(), headers: Record<string, string> = {}) {
  return t.http.get(`/api/certificates/verify/${encodeURIComponent(id)}`, { headers: { 'X-Forwarded-For': ip, ...headers } });
}

async function issuedByAdmin(p: CreatedPartner): Promise<{ learner: Learner; certificateId: string }> {
  const learner = await enrolledLearner(p.http);
  await completeTopics(p.http, learner, false);
  const res = await admin.http.post(
    '/api/certificates/issue',
    { user_id: learner.userId, course_id: learner.course.course.id, override_quiz: true },
    asAdminFor(p),
  );
  expect(res.status).toBe(201);
  return { learner, certificateId: res.body.data.certificate_id };
}

describe('automatic issue at completion', () => {
  it('completing the last topic with every quiz passed issues the certificate and records both events with exact payloads', async () => {
    const l = await enrolledLearner(partner.http);
    await progress(partner.http, l, 0);
    await progress(partner.http, l, 1, true);
    const last = await progress(partner.http, l, 2);
    expect(last).toMatchObject({ status: 'completed', completed_topics: 3, total_topics: 3, quizzes_pending: 0 });
    const certificateId = last.certificate_id as string;
    expect(certificateId).toMatch(CERT_ID);

    const [row] = await t.db.query(`SELECT * FROM certificates WHERE id = $1`, [certificateId]);
    expect(row).toMatchObject({
      partner_id: partner.partnerId,
      mode: 'test',
      user_id: l.userId,
      course_id: l.course.course.id,
      enrollment_id: l.enrollmentId,
      holder_name: l.name,
      course_title: l.course.course.title,
      override_quiz: false,
      revoked_at: null,
    });
    const completedAt = new Date(last.completed_at as string);
    const issuedAt = completedAt.toISOString().slice(0, 10);
    expect(certificateId.slice(4, 8)).toBe(issuedAt.slice(0, 4));

    const completed = await eventsOf(partner.partnerId, 'course.completed', certificateId);
    expect(completed).toHaveLength(1);
    expect(completed[0].payload).toEqual({
      user_id: l.userId,
      user_name: l.name,
      user_email: l.email,
      external_user_id: l.externalUserId,
      course_id: l.course.course.id,
      course_title: l.course.course.title,
      completed_at: completedAt.toISOString(),
      certificate_id: certificateId,
    });
    const issued = await eventsOf(partner.partnerId, 'certificate.issued', certificateId);
    expect(issued).toHaveLength(1);
    expect(issued[0].payload).toEqual({
      certificate_id: certificateId,
      user_id: l.userId,
      external_user_id: l.externalUserId,
      course_id: l.course.course.id,
      course_title: l.course.course.title,
      holder_name: l.name,
      issued_at: issuedAt,
      download_url: `${t.config.publicBaseUrl}/api/certificates/${certificateId}/download`,
      verify_url: `${t.config.publicBaseUrl}/verify/${certificateId}`,
    });
  });

  it('reuses a certificate issued earlier with override_quiz when the learner later completes the course', async () => {
    const { learner, certificateId } = await issuedByAdmin(partner);
    const last = await progress(partner.http, learner, 1, true);
    expect(last).toMatchObject({ status: 'completed', certificate_id: certificateId });
    expect(await t.db.query(`SELECT id FROM certificates WHERE enrollment_id = $1`, [learner.enrollmentId])).toEqual([{ id: certificateId }]);
    expect(await eventsOf(partner.partnerId, 'course.completed', certificateId)).toHaveLength(1);
    expect(await eventsOf(partner.partnerId, 'certificate.issued', certificateId)).toHaveLength(1);
  });

  it('gives live-mode certificates the ECK prefix and the plain platform label', async () => {
    const live = await createKey(t, partner.partnerId, 'live');
    const l = await enrolledLearner(live.http, [false, false]);
    const last = await completeTopics(live.http, l, true);
    expect(last.certificate_id).toMatch(/^ECK-\d{4}-[0-9A-HJKMNP-TV-Z]{10}$/);
    const res = await verify(last.certificate_id as string);
    expect(res.body.certificate.platform).toBe('Learning Platform');
  });

  it('does not issue while a quiz is pending', async () => {
    const l = await enrolledLearner(partner.http);
    const last = await completeTopics(partner.http, l, false);
    expect(last).toMatchObject({ status: 'active', quizzes_pending: 1, certificate_id: null });
    expect(await t.db.query(`SELECT id FROM certificates WHERE enrollment_id = $1`, [l.enrollmentId])).toHaveLength(0);
  });
});

describe('POST /api/certificates/issue', () => {
  it('answers 422 course_not_completed with the progress details when topics or quizzes are missing', async () => {
    const l = await enrolledLearner(partner.http);
    await progress(partner.http, l, 0);
    const res = await partner.http.post('/api/certificates/issue', { user_id: l.userId, course_id: l.course.course.id });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'course_not_completed', details: { completed_topics: 1, total_topics: 3, quizzes_pending: 1 } });
  });

  it('answers 404 enrollment_not_found for a learner not enrolled in the course', async () => {
    const l = await enrolledLearner(partner.http);
    const { course } = await createCourse(t.db);
    const res = await partner.http.post('/api/certificates/issue', { user_id: l.userId, course_id: course.id });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('enrollment_not_found');
  });

  it('refuses override_quiz for a partner key with 403 admin_only', async () => {
    const l = await enrolledLearner(partner.http);
    await completeTopics(partner.http, l, false);
    const res = await partner.http.post('/api/certificates/issue', { user_id: l.userId, course_id: l.course.course.id, override_quiz: true });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('admin_only');
    expect(await t.db.query(`SELECT id FROM certificates WHERE enrollment_id = $1`, [l.enrollmentId])).toHaveLength(0);
  });

  it('lets an admin waive pending quizzes (201 with the contract fields, certificate.issued recorded), then answers 409 to a repeat', async () => {
    const l = await enrolledLearner(partner.http);
    await completeTopics(partner.http, l, false);
    const res = await admin.http.post(
      '/api/certificates/issue',
      { user_id: l.userId, course_id: l.course.course.id, override_quiz: true },
      asAdminFor(partner),
    );
    expect(res.status).toBe(201);
    const id = res.body.data.certificate_id;
    expect(res.body.data).toEqual({
      certificate_id: expect.stringMatching(CERT_ID),
      user_id: l.userId,
      course_id: l.course.course.id,
      holder_name: l.name,
      course_title: l.course.course.title,
      issued_at: new Date().toISOString().slice(0, 10),
      platform: 'Learning Platform (test)',
      verify_url: `${t.config.publicBaseUrl}/verify/${id}`,
      download_url: `${t.config.publicBaseUrl}/api/certificates/${id}/download`,
      override_quiz: true,
    });
    const issued = await eventsOf(partner.partnerId, 'certificate.issued', id);
    expect(issued).toHaveLength(1);
    expect(issued[0].mode).toBe('test');
    expect(await eventsOf(partner.partnerId, 'course.completed', id)).toHaveLength(0);

    const again = await partner.http.post('/api/certificates/issue', { user_id: l.userId, course_id: l.course.course.id });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'certificate_already_issued', details: { certificate_id: id } });
  });

  it('never waives topics, even for an admin', async () => {
    const l = await enrolledLearner(partner.http);
    await progress(partner.http, l, 0);
    const res = await admin.http.post(
      '/api/certificates/issue',
      { user_id: l.userId, course_id: l.course.course.id, override_quiz: true },
      asAdminFor(partner),
    );
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual({ completed_topics: 1, total_topics: 3, quizzes_pending: 1 });
  });

  it('answers 409 for a course completed through progress (issued automatically)', async () => {
    const l = await enrolledLearner(partner.http);
    const last = await completeTopics(partner.http, l, true);
    const res = await partner.http.post('/api/certificates/issue', { user_id: l.userId, course_id: l.course.course.id });
    expect(res.status).toBe(409);
    expect(res.body.error.details).toEqual({ certificate_id: last.certificate_id });
  });

  it("lets an admin without X-Partner-Id issue for a learner found by global user id, in that learner's partner and mode", async () => {
    const l = await enrolledLearner(other.http);
    await completeTopics(other.http, l, false);
    const res = await admin.http.post('/api/certificates/issue', { user_id: l.userId, course_id: l.course.course.id, override_quiz: true });
    expect(res.status).toBe(201);
    const [row] = await t.db.query(`SELECT partner_id, mode FROM certificates WHERE id = $1`, [res.body.data.certificate_id]);
    expect(row).toEqual({ partner_id: other.partnerId, mode: 'test' });
    expect(await eventsOf(other.partnerId, 'certificate.issued', res.body.data.certificate_id)).toHaveLength(1);
  });

  it("does not let a partner issue for another partner's learner (404 user_not_found)", async () => {
    const l = await enrolledLearner(partner.http);
    await completeTopics(partner.http, l, false);
    const res = await other.http.post('/api/certificates/issue', { user_id: l.userId, course_id: l.course.course.id });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('user_not_found');
    const viaAdmin = await admin.http.post(
      '/api/certificates/issue',
      { user_id: l.userId, course_id: l.course.course.id, override_quiz: true },
      asAdminFor(other),
    );
    expect(viaAdmin.status).toBe(404);
    expect(viaAdmin.body.error.code).toBe('user_not_found');
  });

  it('validates the body (400 validation_failed)', async () => {
    const res = await partner.http.post('/api/certificates/issue', { user_id: 'x', course_id: 1, extra: true });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
  });

  it('yields exactly one certificate from 200 parallel attempts for one enrolment', async () => {
    const l = await enrolledLearner(partner.http);
    await completeTopics(partner.http, l, false);
    const body = { user_id: l.userId, course_id: l.course.course.id, override_quiz: true };
    const results = await Promise.all(Array.from({ length: 200 }, () => admin.http.post('/api/certificates/issue', body, asAdminFor(partner))));
    const created = results.filter((r) => r.status === 201);
    const conflicts = results.filter((r) => r.status === 409);
    expect(created).toHaveLength(1);
    expect(conflicts).toHaveLength(199);
    const id = created[0].body.data.certificate_id;
    expect(new Set(conflicts.map((r) => r.body.error.details.certificate_id))).toEqual(new Set([id]));
    expect(await t.db.query(`SELECT id FROM certificates WHERE enrollment_id = $1`, [l.enrollmentId])).toEqual([{ id }]);
    expect(await eventsOf(partner.partnerId, 'certificate.issued', id)).toHaveLength(1);
  });
});

describe('GET /api/certificates/verify/:cert_id', () => {
  it('answers a valid certificate without envelope or key, with only the public fields', async () => {
    const { learner, certificateId } = await issuedByAdmin(partner);
    const res = await verify(certificateId);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      valid: true,
      test: true,
      certificate: {
        id: certificateId,
        holder_name: learner.name,
        course_title: learner.course.course.title,
        issued_at: new Date().toISOString().slice(0, 10),
        platform: 'Learning Platform (test)',
      },
    });
  });

  it('accepts the id as a person may type it (lower case)', async () => {
    const { certificateId } = await issuedByAdmin(partner);
    const res = await verify(certificateId.toLowerCase());
    expect(res.status).toBe(200);
    expect(res.body.certificate.id).toBe(certificateId);
  });

  it('answers valid: false at once after an admin revokes it; partners cannot revoke', async () => {
    const { certificateId } = await issuedByAdmin(partner);
    const denied = await partner.http.post(`/api/admin/certificates/${certificateId}/revoke`);
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('admin_only');

    const revoked = await admin.http.post(`/api/admin/certificates/${certificateId}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({ certificate_id: certificateId, revoked_at: expect.any(String) });
    const res = await verify(certificateId);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: false, certificate: { id: certificateId } });

    const again = await admin.http.post(`/api/admin/certificates/${certificateId}/revoke`);
    expect(again.body.data.revoked_at).toBe(revoked.body.data.revoked_at);
  });

  it('answers 404 for an unknown certificate', async () => {
    const unknown = await admin.http.post('/api/admin/certificates/TST-2026-0000000000/revoke');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('certificate_not_found');
  });

  it.each(['TST-2026-0000000000', 'ECK-2026-ZZZZZZZZZZ', 'not-a-certificate', 'TST-2026-UUUUUUUUUU', "TST-2026-' OR 1=1--"])(
    'answers 404 { valid: false, certificate: null } for the unknown or malformed id %p',
    async (id) => {
      const res = await verify(id);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ valid: false, certificate: null });
    },
  );

  it("lets anyone verify another partner's certificate, and does not count it against the caller's quota", async () => {
    const { certificateId } = await issuedByAdmin(partner);
    const limiter = t.app.get(UsageLimiter);
    const before = await limiter.used(other.partnerId, 'test');
    const res = await verify(certificateId, clientIp(), { 'X-API-Key': other.key });
    expect(res.status).toBe(200);
    expect(res.body.valid).toBe(true);
    expect(res.headers.get('x-quota-remaining')).toBeNull();
    expect(await limiter.used(other.partnerId, 'test')).toBe(before);
  });

  it('is rate-limited per client IP (429 rate_limited with Retry-After)', async () => {
    const ip = clientIp();
    for (let i = 0; i < VERIFY_LIMIT; i++) expect((await verify('TST-2026-0000000000', ip)).status).toBe(404);
    const limited = await verify('TST-2026-0000000000', ip);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await verify('TST-2026-0000000000', clientIp())).status).toBe(404);
  });
});

describe('GET /api/certificates/:cert_id/download', () => {
  it('sends a one-page PDF naming holder, course and id, without a key', async () => {
    const { learner, certificateId } = await issuedByAdmin(partner);
    const res = await fetch(`${t.baseUrl}/api/certificates/${certificateId}/download`, { headers: { 'X-Forwarded-For': clientIp() } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="certificate-${certificateId}.pdf"`);
    const pdf = Buffer.from(await res.arrayBuffer());
    const parser = new PDFParse({ data: pdf });
    try {
      const { text, total } = await parser.getText();
      expect(total).toBe(1);
      for (const s of [learner.name, learner.course.course.title, certificateId, `${t.config.publicBaseUrl}/verify/${certificateId}`]) {
        expect(text).toContain(s);
      }
    } finally {
      await parser.destroy();
    }
  });

  async function download(id: string): Promise<Buffer> {
    const res = await fetch(`${t.baseUrl}/api/certificates/${id}/download`, { headers: { 'X-Forwarded-For': clientIp() } });
    expect(res.status).toBe(200);
    return Buffer.from(await res.arrayBuffer());
  }

  it.each([
    ['Chinese', '王小明', '数据科学导论'],
    ['Arabic', 'سارة', 'مقدمة في علم البيانات'],
    ['Cyrillic', 'Анна Каренина', 'Введение в науку о данных'],
    ['Greek', 'Αλέξανδρος Παπαδόπουλος', 'Εισαγωγή στην επιστήμη δεδομένων'],
  ])('names holder and course in %s exactly in the PDF text (embedded Unicode fonts)', async (_, name, courseTitle) => {
    const cert = await issueCertificate(t, partner, { name, courseTitle });
    const parser = new PDFParse({ data: await download(cert.certificateId) });
    try {
      const { text } = await parser.getText();
      expect(text).toContain(name);
      expect(text).toContain(courseTitle);
    } finally {
      await parser.destroy();
    }
  });

  it("has a QR code that opens the certificate's verification page", async () => {
    const cert = await issueCertificate(t, partner);
    const parser = new PDFParse({ data: await download(cert.certificateId) });
    let png: PNG;
    try {
      const { pages } = await parser.getScreenshot({ scale: 1, imageBuffer: true, imageDataUrl: false });
      png = PNG.sync.read(Buffer.from(pages[0].data));
    } finally {
      await parser.destroy();
    }
    // The code sits in the page's lower right quarter; scanning only there keeps the decoder fast.
    const [x0, y0] = [Math.floor(png.width / 2), Math.floor(png.height / 2)];
    const [w, h] = [png.width - x0, png.height - y0];
    const quarter = new Uint8ClampedArray(w * h * 4);
    for (let y = 0; y < h; y++) quarter.set(png.data.subarray(((y0 + y) * png.width + x0) * 4, ((y0 + y) * png.width + x0 + w) * 4), y * w * 4);
    expect(jsQR(quarter, w, h)?.data).toBe(cert.verifyUrl);
    expect(cert.verifyUrl).toBe(`${t.config.publicBaseUrl}/verify/${cert.certificateId}`);
  });

  it('answers 404 certificate_not_found in the error envelope for an unknown id', async () => {
    const res = await t.http.get('/api/certificates/TST-2026-0000000000/download', { headers: { 'X-Forwarded-For': clientIp() } });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ status: 'error', error: { code: 'certificate_not_found' } });
  });
});

describe('OpenAPI', () => {
  it('marks verification and download as needing no key', async () => {
    const doc = (await t.http.get('/docs/openapi.json')).body;
    expect(doc.paths['/api/certificates/verify/{cert_id}'].get.security).toEqual([]);
    expect(doc.paths['/api/certificates/{cert_id}/download'].get.security).toEqual([]);
    expect(doc.paths['/api/certificates/issue'].post.security).toBeUndefined();
  });

  it('documents a success and an error response for every certificate operation', async () => {
    const doc = (await t.http.get('/docs/openapi.json')).body;
    const ops = [
      doc.paths['/api/certificates/issue'].post,
      doc.paths['/api/certificates/verify/{cert_id}'].get,
      doc.paths['/api/certificates/{cert_id}/download'].get,
      doc.paths['/api/admin/certificates/{id}/revoke'].post,
    ];
    for (const op of ops) {
      const statuses = Object.keys(op.responses);
      expect(statuses.some((s) => s.startsWith('2')) && statuses.some((s) => /^[45]/.test(s))).toBe(true);
    }
  });
});
