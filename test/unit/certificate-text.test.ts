import PDFDocument from 'pdfkit';
import { UnicodeText } from '../../src/certificates/pdf/unicode-text';

/** The runs of each line, left to right as drawn: [font, text handed to the shaper]. */
function runs(text: string, width = 640, maxLines = 2): Array<Array<[string, string]>> {
  const doc = new PDFDocument({ size: 'A4', layout: 'landscape', margin: 0 });
  const { lines } = new UnicodeText(doc, 'name').fit(text, { max: 38, min: 16, width, maxLines, maxHeight: 1000, lineHeight: 1.25 });
  doc.end();
  return lines.map((l) => l.runs.map((r) => [r.font.id, r.text] as [string, string]));
}

describe('certificate text in any script', () => {
  it('takes each script from a font that has it', () => {
    expect(runs('Анна Αλέξανδρος Nguyễn')).toEqual([[['NotoSerif-BoldItalic', 'Анна Αλέξανδρος Nguyễn']]]);
    expect(runs('王小明')).toEqual([[['NotoSansSC-Bold', '王小明']]]);
    expect(runs('김민준')).toEqual([[['NotoSansKR-Bold', '김민준']]]);
    expect(runs('سارة')).toEqual([[['NotoSansArabic-Bold', 'سارة']]]);
  });

  it('keeps an Arabic phrase one run in logical order (the shaper joins and reverses it) with its spaces', () => {
    expect(runs('سارة أحمد')).toEqual([[['NotoSansArabic-Bold', 'سارة أحمد']]]);
  });

  it('orders mixed text with the bidi algorithm: an Arabic name with a Latin part reads right to left, brackets mirrored', () => {
    // Paragraph direction from the first strong letter (Arabic): the Latin part and the number come first on the left.
    expect(runs('سارة أحمد (Sara) 2')).toEqual([
      [
        ['NotoSerif-BoldItalic', '2'],
        ['NotoSerif-BoldItalic', ' ('],
        ['NotoSerif-BoldItalic', 'Sara'],
        ['NotoSerif-BoldItalic', ') '],
        ['NotoSansArabic-Bold', 'سارة أحمد'],
      ],
    ]);
    // A left-to-right paragraph keeps the Latin part first.
    expect(runs('Dr. سارة أحمد')).toEqual([
      [
        ['NotoSerif-BoldItalic', 'Dr. '],
        ['NotoSansArabic-Bold', 'سارة أحمد'],
      ],
    ]);
  });

  it('breaks long text at spaces, Chinese between any two characters, and ends with an ellipsis when it cannot fit', () => {
    const latin = runs('Maximilian Alexander von Habsburg-Lothringen Esterházy de Galántha', 460);
    expect(latin.length).toBe(2);
    expect(
      latin
        .flat()
        .map(([, t]) => t)
        .join(' '),
    ).toBe('Maximilian Alexander von Habsburg-Lothringen Esterházy de Galántha');
    const chinese = runs('王'.repeat(60), 300);
    expect(chinese.length).toBe(2);
    const cut = runs('N'.repeat(200));
    expect(cut.length).toBe(2);
    expect(cut[1][cut[1].length - 1][1].endsWith('…')).toBe(true);
  });
});
