import { dirname, join } from 'node:path';
import { PDFParse } from 'pdf-parse';
import { Certificate } from '../../src/certificates/certificate.entity';
import { renderCertificatePdf } from '../../src/certificates/certificate-pdf';

function certificate(overrides: Partial<Certificate> = {}): Certificate {
  return Object.assign(new Certificate(), {
    id: 'ECK-2026-7K3QX9M2PD',
    partnerId: 1,
    mode: 'live',
    userId: 1,
    courseId: 1,
    enrollmentId: 1,
    holderName: 'Ada Lovelace',
    courseTitle: 'Introduction to Analytical Engines',
    issuedAt: '2026-11-22',
    overrideQuiz: false,
    revokedAt: null,
    createdAt: new Date(),
    ...overrides,
  });
}

// pdf.js loads its worker with a dynamic import(), which jest (CommonJS) cannot run: hand it the worker module.
(globalThis as { pdfjsWorker?: unknown }).pdfjsWorker ??= require(join(dirname(require.resolve('pdf-parse')), 'pdf.worker.mjs'));

async function textOf(pdf: Buffer): Promise<{ text: string; pages: number }> {
  const parser = new PDFParse({ data: pdf });
  try {
    const result = await parser.getText();
    return { text: result.text, pages: result.total };
  } finally {
    await parser.destroy();
  }
}

const VERIFY = 'https://learn.example.com/api/certificates/verify/ECK-2026-7K3QX9M2PD';

describe('certificate PDF', () => {
  it('is one page naming holder, course, date, id, platform and verify URL', async () => {
    const pdf = await renderCertificatePdf(certificate(), VERIFY);
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const { text, pages } = await textOf(pdf);
    expect(pages).toBe(1);
    for (const s of ['Ada Lovelace', 'Introduction to Analytical Engines', '22 November 2026', 'ECK-2026-7K3QX9M2PD', 'Learning Platform', VERIFY]) {
      expect(text).toContain(s);
    }
  });

  it('stays one page with a very long name and course title', async () => {
    const pdf = await renderCertificatePdf(certificate({ holderName: 'N'.repeat(200), courseTitle: 'Long title words '.repeat(17).trim() }), VERIFY);
    expect((await textOf(pdf)).pages).toBe(1);
  });

  it('marks test and revoked certificates', async () => {
    expect((await textOf(await renderCertificatePdf(certificate({ mode: 'test', id: 'TST-2026-7K3QX9M2PD' }), VERIFY))).text).toContain('Learning Platform (test)');
    expect((await textOf(await renderCertificatePdf(certificate({ revokedAt: new Date() }), VERIFY))).text).toContain('REVOKED');
  });
});
