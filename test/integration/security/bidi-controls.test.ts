import { dirname, join } from 'node:path';
import { decodeJwt } from 'jose';
import { PDFParse } from 'pdf-parse';
import { startApp, TestApp } from '../../support/app';
import { createCourse, createPartner, CreatedPartner, unique } from '../../support/factories';
import { clientIps, issueCertificate } from '../certificate.helpers';

// pdf.js loads its worker with a dynamic import(), which jest (CommonJS) cannot run: hand it the worker module.
(globalThis as { pdfjsWorker?: unknown }).pdfjsWorker ??= require(join(dirname(require.resolve('pdf-parse')), 'pdf.worker.mjs'));

/**
 * Issue 26, finding 7: a right-to-left override (U+202E) in a holder name or course title reordered what the PDF,
 * the verification page and the credential showed ("John \u202Enosnhoj" read "John johnson"). Displayed text drops the
 * embedding, override and isolate controls; what the partner stored is returned unchanged.
 */
const CONTROLS = /[\u202A-\u202E\u2066-\u2069]/;
let t: TestApp;
let partner: CreatedPartner;
const clientIp = clientIps('198.51');
beforeAll(async () => {
  t = await startApp({ TRUST_PROXY: '1' });
  partner = await createPartner(t, { plan: 'enterprise' });
});
afterAll(() => t.close());

const get = (path: string) => fetch(`${t.baseUrl}${path}`, { headers: { 'X-Forwarded-For': clientIp() } });

async function pdfText(certificateId: string): Promise<string> {
  const parser = new PDFParse({ data: Buffer.from(await (await get(`/api/certificates/${certificateId}/download`)).arrayBuffer()) });
  try {
    return (await parser.getText()).text;
  } finally {
    await parser.destroy();
  }
}

describe('bidirectional controls in names and titles', () => {
  const suffix = unique('x').replace(/\W/g, '');
  const name = `John \u202Enosnhoj\u202C ${suffix}`;
  const title = `Safety \u202Egnitset\u202C \u2067course\u2069 ${suffix}`;
  let certificateId: string;
  let userId: number;

  beforeAll(async () => {
    const cert = await issueCertificate(t, partner, { name, courseTitle: title });
    certificateId = cert.certificateId;
    userId = cert.userId;
  });

  it('are dropped from the verification page', async () => {
    const html = await (await get(`/verify/${certificateId}`)).text();
    expect(html).not.toMatch(CONTROLS);
    expect(html).toContain(`John nosnhoj ${suffix}`);
    expect(html).toContain(`Safety gnitset course ${suffix}`);
  });

  it('are dropped from the PDF, which draws the text in its own order', async () => {
    const text = await pdfText(certificateId);
    expect(text).not.toMatch(CONTROLS);
    expect(text).toContain('nosnhoj');
    expect(text).not.toContain('johnson');
    expect(text).toContain('gnitset');
  });

  it('are dropped from the signed credential', async () => {
    const res = await get(`/api/certificates/${certificateId}/credential`);
    const payload = decodeJwt(await res.text()) as { name: string; credentialSubject: { name: string; achievement: { name: string } } };
    expect(payload.credentialSubject.name).toBe(`John nosnhoj ${suffix}`);
    expect(payload.credentialSubject.achievement.name).toBe(`Safety gnitset course ${suffix}`);
    expect(payload.name).not.toMatch(CONTROLS);
  });

  it('are dropped from the course preview page', async () => {
    const { course } = await createCourse(t.db, { title: `Preview \u202Ewen\u202C ${suffix}` });
    const html = await (await get(`/preview/courses/${course.id}`)).text();
    expect(html).not.toMatch(CONTROLS);
    expect(html).toContain(`Preview wen ${suffix}`);
  });

  it('stay in the stored value the API returns', async () => {
    const res = await partner.http.get(`/api/users/${userId}`);
    expect(res.body.data.name).toBe(name);
  });
});

describe('right-to-left names', () => {
  it('display exactly as stored, on the page, in the credential and in the PDF', async () => {
    const name = 'سارة أحمد';
    const cert = await issueCertificate(t, partner, { name, courseTitle: `مقدمة ${unique('c')}` });
    expect(await (await get(`/verify/${cert.certificateId}`)).text()).toContain(name);
    const payload = decodeJwt(await (await get(`/api/certificates/${cert.certificateId}/credential`)).text()) as { credentialSubject: { name: string } };
    expect(payload.credentialSubject.name).toBe(name);
    expect(await pdfText(cert.certificateId)).toContain(name);
  });
});
