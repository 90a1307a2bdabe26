import { readFileSync } from 'node:fs';
import * as fontkit from 'fontkit';

/** One weight and style of the text fonts, with the families tried in order for each character (fallback by script). */
export type TextStyle = 'name' | 'title';

interface FontFile {
  /** Name registered with PDFKit (one per file). */
  id: string;
  /** Package path of the TrueType file (npm packages of Google's Noto fonts, SIL Open Font License 1.1). */
  file: string;
}

const SERIF_BOLD_ITALIC = { id: 'NotoSerif-BoldItalic', file: '@expo-google-fonts/noto-serif/700Bold_Italic/NotoSerif_700Bold_Italic.ttf' };
const SERIF_BOLD = { id: 'NotoSerif-Bold', file: '@expo-google-fonts/noto-serif/700Bold/NotoSerif_700Bold.ttf' };
const ARABIC_BOLD = { id: 'NotoSansArabic-Bold', file: '@expo-google-fonts/noto-sans-arabic/700Bold/NotoSansArabic_700Bold.ttf' };
const CJK_SC_BOLD = { id: 'NotoSansSC-Bold', file: '@expo-google-fonts/noto-sans-sc/700Bold/NotoSansSC_700Bold.ttf' };
const CJK_KR_BOLD = { id: 'NotoSansKR-Bold', file: '@expo-google-fonts/noto-sans-kr/700Bold/NotoSansKR_700Bold.ttf' };

/**
 * Noto Serif covers Latin (with Vietnamese and the other extensions), Cyrillic and Greek; Noto Sans Arabic the Arabic
 * script; Noto Sans SC the Chinese characters, kana and bopomofo; Noto Sans KR Hangul. A character takes the first
 * family that has it.
 */
const CHAINS: Record<TextStyle, FontFile[]> = {
  name: [SERIF_BOLD_ITALIC, ARABIC_BOLD, CJK_SC_BOLD, CJK_KR_BOLD],
  title: [SERIF_BOLD, ARABIC_BOLD, CJK_SC_BOLD, CJK_KR_BOLD],
};

export interface LoadedFont {
  id: string;
  font: fontkit.Font;
}

// Read and parsed once per process, on first use (the CJK files are 6–10 MB each); PDFKit embeds in each PDF only
// the glyphs it uses.
const loaded = new Map<string, LoadedFont>();

function load(f: FontFile): LoadedFont {
  let font = loaded.get(f.id);
  if (!font) {
    font = { id: f.id, font: withTextForEveryGlyph(fontkit.create(readFileSync(require.resolve(f.file))) as fontkit.Font) };
    loaded.set(f.id, font);
  }
  return font;
}

/** The font of a character: the first family of the style that has it (later families load only when needed). */
export function fontFor(style: TextStyle, codePoint: number): LoadedFont | null {
  for (const f of CHAINS[style]) {
    const font = load(f);
    if (font.font.hasGlyphForCodePoint(codePoint)) return font;
  }
  return null;
}

/** The style's first family: for characters no family has (they are drawn as its missing-glyph box). */
export function primaryFont(style: TextStyle): LoadedFont {
  return load(CHAINS[style][0]);
}

// U+200D ZERO WIDTH JOINER: invisible, a format character text extractors skip, and true to what the glyph is.
const ZWJ = [0x200d];

/**
 * Arabic fonts draw many letters as a dotless body plus separate dot or hamza glyphs; the shaper gives those extra
 * glyphs no characters (the body carries the letter). PDFKit would write them into the PDF's text map as empty, which
 * readers replace with the glyph number (stray control characters in copied text); they are mapped to a zero width
 * joiner instead, so the text reads back exactly.
 */
function withTextForEveryGlyph(font: fontkit.Font): fontkit.Font {
  const layout = font.layout.bind(font);
  font.layout = (text: string, features?: unknown) => {
    const run = layout(text, features as never);
    run.glyphs = run.glyphs.map((g) => (g.codePoints.length ? g : (Object.create(g, { codePoints: { value: ZWJ } }) as fontkit.Glyph)));
    return run;
  };
  return font;
}
