import PDFDocument from 'pdfkit';
import * as QRCode from 'qrcode';
import { displayText } from '../../common/text';
import type { Certificate } from '../certificates.repository';
import { formatIssueDate, platformLabel } from '../certificate.mapper';
import { TextBox, UnicodeText } from './unicode-text';

const NAVY = '#1F3A5F';
const GOLD = '#B8903A';
const INK = '#2B2B2B';
const MUTED = '#6B6B6B';
const PAPER = '#FBF8F1';
const W = 841.89; // A4 landscape, points
const H = 595.28;
const TEXT_WIDTH = 640;
const LEFT = (W - TEXT_WIDTH) / 2;

type Doc = PDFKit.PDFDocument;

// Holder: one line from 38 pt down, two lines below ~22 pt; above the rule at y 252. Course: up to three lines above the footer.
const NAME_BOX: TextBox = { max: 38, min: 14, width: TEXT_WIDTH, maxLines: 2, maxHeight: 56, lineHeight: 1.25 };
const TITLE_BOX: TextBox = { max: 24, min: 12, width: TEXT_WIDTH, maxLines: 3, maxHeight: 96, lineHeight: 1.3 };

/** Renders a one-page A4 landscape certificate: holder, course, date, id, platform, verify URL and its QR code. */
export function renderCertificatePdf(cert: Certificate, verifyUrl: string): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    layout: 'landscape',
    margin: 0, // everything is placed explicitly; no automatic page breaks
    info: { Title: `Certificate ${cert.id}`, Author: platformLabel(cert.mode), Subject: displayText(`${cert.holderName}: ${cert.courseTitle}`) },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  frame(doc);
  if (cert.revokedAt) watermark(doc, 'REVOKED', '#C0392B');
  else if (cert.mode === 'test') watermark(doc, 'TEST', '#9AA5B1');
  body(doc, cert);
  footer(doc, cert, verifyUrl);
  doc.end();
  return done;
}

function frame(doc: Doc): void {
  doc.rect(0, 0, W, H).fill(PAPER);
  doc
    .lineWidth(6)
    .rect(20, 20, W - 40, H - 40)
    .stroke(NAVY);
  doc
    .lineWidth(1.2)
    .rect(32, 32, W - 64, H - 64)
    .stroke(GOLD);
  for (const [x, y] of [
    [32, 32],
    [W - 32, 32],
    [32, H - 32],
    [W - 32, H - 32],
  ]) {
    doc.save().translate(x, y).rotate(45).rect(-5, -5, 10, 10).fill(GOLD).restore();
  }
}

function watermark(doc: Doc, word: string, color: string): void {
  doc
    .save()
    .rotate(-24, { origin: [W / 2, H / 2] })
    .fillOpacity(0.12)
    .fillColor(color)
    .font('Helvetica-Bold')
    .fontSize(150);
  doc.text(word, 0, H / 2 - 75, { width: W, align: 'center', lineBreak: false });
  doc.restore();
}

function body(doc: Doc, cert: Certificate): void {
  doc.fillOpacity(1);
  centered(doc, platformLabel(cert.mode), 62, 'Helvetica-Bold', 14, NAVY);
  centered(doc, 'Certificate of Completion', 92, 'Times-Bold', 40, NAVY);
  doc
    .lineWidth(1.5)
    .moveTo(W / 2 - 70, 146)
    .lineTo(W / 2 + 70, 146)
    .stroke(GOLD);
  centered(doc, 'This certifies that', 170, 'Times-Italic', 16, MUTED);
  // Holder and course are in any script: embedded Unicode fonts, bidi ordering and shaping (UnicodeText).
  const holder = new UnicodeText(doc, 'name').fit(cert.holderName, NAME_BOX);
  const nameTop = 246 - holder.lines.length * holder.size * NAME_BOX.lineHeight;
  new UnicodeText(doc, 'name').drawCentered(holder.lines, holder.size, W / 2, nameTop, NAME_BOX, INK);
  doc
    .lineWidth(0.6)
    .moveTo(W / 2 - 220, 252)
    .lineTo(W / 2 + 220, 252)
    .stroke(MUTED);
  centered(doc, 'has successfully completed the course', 264, 'Times-Italic', 16, MUTED);
  const title = new UnicodeText(doc, 'title').fit(cert.courseTitle, TITLE_BOX);
  new UnicodeText(doc, 'title').drawCentered(title.lines, title.size, W / 2, 292, TITLE_BOX, NAVY);
}

function footer(doc: Doc, cert: Certificate, verifyUrl: string): void {
  const baseY = 400;
  // Date of issue, left column
  doc
    .font('Times-Bold')
    .fontSize(16)
    .fillColor(INK)
    .text(formatIssueDate(cert.issuedAt), 80, baseY + 40, { width: 220, align: 'center', lineBreak: false });
  doc
    .lineWidth(0.6)
    .moveTo(100, baseY + 62)
    .lineTo(280, baseY + 62)
    .stroke(MUTED);
  doc
    .font('Helvetica')
    .fontSize(9)
    .fillColor(MUTED)
    .text('DATE OF ISSUE', 80, baseY + 68, { width: 220, align: 'center', characterSpacing: 1.5, lineBreak: false });

  seal(doc, W / 2, baseY + 55);

  // QR code of the verification URL, right column
  const qrSize = 86;
  const qrX = W - 80 - 220 + (220 - qrSize) / 2;
  drawQr(doc, verifyUrl, qrX, baseY + 8, qrSize);
  doc
    .font('Helvetica')
    .fontSize(9)
    .fillColor(MUTED)
    .text('SCAN TO VERIFY', W - 300, baseY + 100, { width: 220, align: 'center', characterSpacing: 1.5, lineBreak: false });

  doc.font('Helvetica').fontSize(8.5).fillColor(MUTED);
  doc.text(`Certificate ID: ${cert.id}`, LEFT, H - 70, { width: TEXT_WIDTH, align: 'center', lineBreak: false });
  doc.text(`Verify at ${verifyUrl}`, LEFT - 60, H - 58, { width: TEXT_WIDTH + 120, align: 'center', lineBreak: false, link: verifyUrl });
}

function seal(doc: Doc, cx: number, cy: number): void {
  doc.circle(cx, cy, 40).fill(GOLD);
  doc.lineWidth(1.5).circle(cx, cy, 33).stroke(PAPER);
  doc
    .font('Helvetica-Bold')
    .fontSize(9)
    .fillColor(PAPER)
    .text('CERTIFIED', cx - 40, cy - 5, { width: 80, align: 'center', characterSpacing: 1, lineBreak: false });
}

/** Draws the QR code as vector runs of dark modules (crisp at any zoom, no image needed). */
function drawQr(doc: Doc, text: string, x: number, y: number, size: number): void {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const cell = size / modules.size;
  for (let row = 0; row < modules.size; row++) {
    let col = 0;
    while (col < modules.size) {
      if (!modules.get(row, col)) {
        col++;
        continue;
      }
      const start = col;
      while (col < modules.size && modules.get(row, col)) col++;
      doc.rect(x + start * cell, y + row * cell, (col - start) * cell + 0.15, cell + 0.15);
    }
  }
  doc.fill(INK);
}

function centered(doc: Doc, text: string, y: number, font: string, size: number, color: string, extra: PDFKit.Mixins.TextOptions = {}): void {
  doc
    .font(font)
    .fontSize(size)
    .fillColor(color)
    .text(text, LEFT, y, { width: TEXT_WIDTH, align: 'center', lineBreak: false, ...extra });
}
