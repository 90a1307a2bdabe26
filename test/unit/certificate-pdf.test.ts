import { dirname, join } from 'node:path';
import { PDFParse } from 'pdf-parse';
import { Certificate } from '../../src/certificates/certificate.entity';
import { renderCertificatePdf } from '../../src/certificates/pdf/certificate-pdf';

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

const VERIFY = 'https://learn.example.com/verify/ECK-2026-7K3QX9M2PD';

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

  it.each([
    ['Chinese', '王小明', '数据科学导论'],
    ['Arabic', 'سارة', 'مقدمة في علم البيانات'],
    ['Arabic, two words', 'سارة أحمد', 'علم البيانات'],
    ['Cyrillic', 'Анна Каренина', 'Введение в науку о данных'],
    ['Greek', 'Αλέξανδρος Παπαδόπουλος', 'Εισαγωγή στην επιστήμη δεδομένων'],
    ['Korean', '김민준', '데이터 과학 입문'],
    ['Japanese', 'やまだ たろう', '山田太郎のデータ'],
    ['Latin with diacritics', 'Nguyễn Thị Minh Khai', 'Łódź: Żółć for Beginners'],
  ])('renders holder name and course title in %s with embedded fonts, so the text reads back exactly', async (_, holderName, courseTitle) => {
    const pdf = await renderCertificatePdf(certificate({ holderName, courseTitle }), VERIFY);
    const { text } = await textOf(pdf);
    expect(text).toContain(holderName);
    expect(text).toContain(courseTitle);
  });

  it('stays one page with a very long name and course title', async () => {
    const pdf = await renderCertificatePdf(certificate({ holderName: 'N'.repeat(200), courseTitle: 'Long title words '.repeat(17).trim() }), VERIFY);
    expect((await textOf(pdf)).pages).toBe(1);
  });

  it('marks test and revoked certificates', async () => {
    expect((await textOf(await renderCertificatePdf(certificate({ mode: 'test', id: 'TST-2026-7K3QX9M2PD' }), VERIFY))).text).toContain(
      'Learning Platform (test)',
    );
    expect((await textOf(await renderCertificatePdf(certificate({ revokedAt: new Date() }), VERIFY))).text).toContain('REVOKED');
  });
});
