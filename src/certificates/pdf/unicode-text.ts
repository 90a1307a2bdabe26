import bidiFactory from 'bidi-js';
import { displayText } from '../../common/text';
import { fontFor, LoadedFont, primaryFont, TextStyle } from './certificate-fonts';

type Doc = PDFKit.PDFDocument;

const bidi = bidiFactory();
// Fonts registered with each document (both styles share the fallback families).
const registeredFonts = new WeakMap<Doc, Set<string>>();

/** A piece of a line in one font and one direction, in the order it is drawn (left to right). */
interface Run {
  font: LoadedFont;
  /** The characters as handed to the shaper: logical order for right-to-left scripts (the shaper mirrors them itself). */
  text: string;
  width: number;
}

type Glyph = { ch: string; font: LoadedFont };
/** Text between break opportunities, its width at size 1, and its characters' widths once it had to be split. */
type Word = { chars: Glyph[]; width: number; split?: Array<{ chars: Glyph[]; width: number }> };

interface Line {
  runs: Run[];
  width: number;
}

/** Where text must fit: font sizes to try, line width, lines and height at most, line height as a multiple of the size. */
export interface TextBox {
  max: number;
  min: number;
  width: number;
  maxLines: number;
  maxHeight: number;
  lineHeight: number;
}

// Scripts the shaper (fontkit) lays out right to left by itself.
const RTL_SCRIPT = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]/u;
// Characters that belong to no script (spaces, punctuation, digits, combining marks) take their neighbour's font.
const COMMON = /^[\p{Script=Common}\p{Script=Inherited}]$/u;
// Scripts written without spaces: a line may break between any two of their characters.
const BREAK_ANYWHERE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Bopomofo}]/u;
// Shaping features: an explicit list makes PDFKit lay out a whole run at once (it would otherwise lay out word by word
// left to right, which scrambles right-to-left phrases); the shaper adds each script's required features itself.
const SHAPE = { features: [] as PDFKit.Mixins.OpenTypeFeatures[] };

/**
 * Text in any script for the certificate PDF: each character in a font that has it (fallback by script), lines broken
 * to a width, each line put in visual order with the Unicode Bidirectional Algorithm, and every run shaped
 * (Arabic joining, ligatures, marks) by the font engine.
 */
export class UnicodeText {
  private readonly registered: Set<string>;

  constructor(
    private readonly doc: Doc,
    private readonly style: TextStyle,
  ) {
    this.registered = registeredFonts.get(doc) ?? new Set<string>();
    registeredFonts.set(doc, this.registered);
  }

  /**
   * The largest size from `box.max` down to `box.min` at which `text` fits the box (at most `maxLines` lines of
   * `width`, their height within `maxHeight`), and its lines; at `min` the last line that fits ends with an ellipsis
   * if the text is longer still.
   */
  fit(text: string, box: TextBox): { size: number; lines: Line[] } {
    // Widths grow linearly with the size: each word is measured once, at size 1.
    const words: Word[] = breakable(this.fonts(displayText(text).replace(/\s+/g, ' ').trim())).map((chars) => ({ chars, width: this.measure(chars, 1) }));
    const linesFitting = (size: number) => Math.max(1, Math.min(box.maxLines, Math.floor(box.maxHeight / (size * box.lineHeight))));
    for (let size = box.max; size >= box.min; size--) {
      const lines = this.wrap(words, box.width / size);
      if (lines.length <= linesFitting(size)) return { size, lines: lines.map((l) => this.line(l, size)) };
    }
    const lines = this.wrap(words, box.width / box.min);
    return { size: box.min, lines: this.truncated(lines.slice(0, linesFitting(box.min)), box.min, box.width) };
  }

  /** Draws lines centred on `centerX`, the first line's top at `y`; every font of a line sits on one baseline. */
  drawCentered(lines: Line[], size: number, centerX: number, y: number, box: TextBox, color: string): void {
    const lineHeight = size * box.lineHeight;
    const primary = primaryFont(this.style).font;
    const ascent = (primary.ascent / primary.unitsPerEm) * size;
    lines.forEach((line, i) => {
      let x = centerX - line.width / 2;
      for (const run of line.runs) {
        this.use(run.font)
          .fontSize(size)
          .fillColor(color)
          .text(run.text, x, y + ascent + i * lineHeight, { lineBreak: false, baseline: 'alphabetic', ...SHAPE });
        x += run.width;
      }
    });
  }

  /**
   * Each character (code point) with its font: its own script's first family that has it. A common character
   * (space, punctuation, digit, mark) between two characters of one font stays in that font (one shaped run, so Arabic
   * words keep joining across it); elsewhere it takes the style's first family.
   */
  private fonts(text: string): Array<{ ch: string; font: LoadedFont }> {
    const chars = Array.from(text);
    const own: Array<LoadedFont | null> = chars.map((ch) => (COMMON.test(ch) ? null : fontFor(this.style, ch.codePointAt(0)!)));
    const primary = primaryFont(this.style);
    const has = (f: LoadedFont | null | undefined, ch: string): f is LoadedFont => !!f && f.font.hasGlyphForCodePoint(ch.codePointAt(0)!);
    return chars.map((ch, i) => {
      if (own[i] || !COMMON.test(ch)) return { ch, font: own[i] ?? primary };
      const before = own
        .slice(0, i)
        .reverse()
        .find((f) => f);
      const after = own.slice(i + 1).find((f) => f);
      const font =
        before === after && has(before, ch)
          ? before
          : has(primary, ch)
            ? primary
            : has(before, ch)
              ? before
              : has(after, ch)
                ? after
                : (fontFor(this.style, ch.codePointAt(0)!) ?? primary);
      return { ch, font };
    });
  }

  /** Greedy line breaking between words (widths at size 1 against `limit`); a word too long for a line is split. */
  private wrap(words: Word[], limit: number): Glyph[][] {
    const lines: Glyph[][] = [];
    let current: Glyph[] = [];
    let used = 0;
    const place = (chars: Glyph[], width: number) => {
      if (current.length && used + width > limit) {
        lines.push(trimEnd(current));
        const leading = chars[0].ch === ' ';
        current = leading ? chars.slice(1) : [...chars];
        used = leading ? width - this.measure([chars[0]], 1) : width;
      } else {
        current.push(...chars);
        used += width;
      }
    };
    for (const word of words) {
      if (word.width <= limit) place(word.chars, word.width);
      else {
        word.split ??= word.chars.map((c) => ({ chars: [c], width: this.measure([c], 1) }));
        for (const piece of word.split) place(piece.chars, piece.width);
      }
    }
    if (current.length) lines.push(trimEnd(current));
    return lines;
  }

  /** The lines, the last one cut to fit with an ellipsis. */
  private truncated(lines: Glyph[][], size: number, width: number): Line[] {
    const last = [...lines[lines.length - 1]];
    const ellipsis = { ch: '…', font: primaryFont(this.style) };
    while (last.length && this.measure([...trimEnd(last), ellipsis], size) > width) last.pop();
    lines[lines.length - 1] = [...trimEnd(last), ellipsis];
    return lines.map((l) => this.line(l, size));
  }

  /** One line in visual order: runs of one font and one embedding level, reordered by the bidi algorithm (rule L2). */
  private line(chars: Glyph[], size: number): Line {
    const text = chars.map((c) => c.ch).join('');
    const { levels } = bidi.getEmbeddingLevels(text, 'auto');
    // Levels are per UTF-16 unit; take each code point's first unit.
    const levelOf: number[] = [];
    let unit = 0;
    for (const c of chars) {
      levelOf.push(levels[unit]);
      unit += c.ch.length;
    }
    const runs: Array<{ font: LoadedFont; level: number; chars: string[] }> = [];
    chars.forEach((c, i) => {
      const last = runs[runs.length - 1];
      if (last && last.font === c.font && last.level === levelOf[i]) last.chars.push(c.ch);
      else runs.push({ font: c.font, level: levelOf[i], chars: [c.ch] });
    });
    const maxLevel = Math.max(...runs.map((r) => r.level));
    const lowestOdd = Math.min(...runs.map((r) => r.level).filter((l) => l % 2 === 1), maxLevel + 1);
    for (let level = maxLevel; level >= lowestOdd; level--) {
      for (let i = 0; i < runs.length; i++) {
        if (runs[i].level < level) continue;
        let j = i;
        while (j + 1 < runs.length && runs[j + 1].level >= level) j++;
        runs.splice(i, j - i + 1, ...runs.slice(i, j + 1).reverse());
        i = j;
      }
    }
    const shaped = runs.map((r) => {
      const logical = r.chars.join('');
      // The shaper reverses right-to-left scripts itself; a right-to-left run of other characters (neutrals between
      // Arabic words, say) is reversed here, with mirrored brackets.
      const text =
        r.level % 2 === 1 && !RTL_SCRIPT.test(logical)
          ? [...r.chars]
              .reverse()
              .map((ch) => bidi.getMirroredCharacter(ch) ?? ch)
              .join('')
          : logical;
      return { font: r.font, text, width: this.width(r.font, text, size) };
    });
    return { runs: shaped, width: shaped.reduce((sum, r) => sum + r.width, 0) };
  }

  private measure(chars: Glyph[], size: number): number {
    let total = 0;
    let i = 0;
    while (i < chars.length) {
      let j = i;
      while (j < chars.length && chars[j].font === chars[i].font) j++;
      total += this.width(
        chars[i].font,
        chars
          .slice(i, j)
          .map((c) => c.ch)
          .join(''),
        size,
      );
      i = j;
    }
    return total;
  }

  private width(font: LoadedFont, text: string, size: number): number {
    return this.use(font).fontSize(size).widthOfString(text, SHAPE);
  }

  /** Selects the font, handing PDFKit the parsed font the first time (it accepts a fontkit font as its source). */
  private use(font: LoadedFont): Doc {
    if (!this.registered.has(font.id)) {
      this.doc.registerFont(font.id, font.font as unknown as Buffer);
      this.registered.add(font.id);
    }
    return this.doc.font(font.id);
  }
}

/** Words to break between: a space starts a new word, and so does each CJK character. */
function breakable<T extends { ch: string }>(chars: T[]): T[][] {
  const words: T[][] = [];
  for (const c of chars) {
    const last = words[words.length - 1];
    const prev = last?.[last.length - 1];
    if (!last || c.ch === ' ' || BREAK_ANYWHERE.test(c.ch) || (prev && BREAK_ANYWHERE.test(prev.ch))) words.push([c]);
    else last.push(c);
  }
  return words;
}

function trimEnd<T extends { ch: string }>(chars: T[]): T[] {
  let end = chars.length;
  while (end > 0 && chars[end - 1].ch === ' ') end--;
  return chars.slice(0, end);
}
