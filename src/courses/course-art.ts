import { escapeHtml } from '../common/html';

/** Generated course thumbnails and tutor avatars (SVG), drawn from text only. */

// Characters XML 1.0 forbids even when escaped; dropping them keeps the document well-formed.
// eslint-disable-next-line no-control-regex -- the control characters are exactly what must be matched and dropped
const XML_FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

/** Escapes text for XML and HTML element content and quoted attribute values. */
export function escapeMarkup(text: string): string {
  return escapeHtml(text.replace(XML_FORBIDDEN, ''));
}

/** A stable hue (0–359) for a text, so one category always has one colour. */
export function hueOf(text: string): number {
  let hash = 0x811c9dc5;
  for (const ch of text.toLowerCase()) {
    hash ^= ch.codePointAt(0)!;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % 360;
}

/** Dark enough for white text at every hue (WCAG AA for large text). */
function background(hue: number): string {
  return `hsl(${hue}, 55%, 32%)`;
}

/** Splits text into at most `maxLines` lines of about `width` characters, with an ellipsis when cut. */
export function wrapText(text: string, width: number, maxLines: number): string[] {
  const words = text
    .trim()
    .split(/\s+/)
    .flatMap((w) => (w.length > width ? (w.match(new RegExp(`.{1,${width}}`, 'gu')) ?? [w]) : [w]));
  const lines: string[] = [];
  for (const word of words) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last].length + 1 + word.length <= width) lines[last] += ` ${word}`;
    else lines.push(word);
  }
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  kept[maxLines - 1] = `${kept[maxLines - 1].slice(0, width - 1).trimEnd()}…`;
  return kept;
}

/** Up to two initials of a name ("Ada Lovelace" → "AL"; "Plato" → "P"). */
export function initialsOf(name: string): string {
  const parts = name
    .replace(/[^\p{L}\p{N}\s'-]/gu, ' ')
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  if (!parts.length) return '?';
  const first = Array.from(parts[0])[0];
  const last = parts.length > 1 ? Array.from(parts[parts.length - 1])[0] : '';
  return (first + last).toUpperCase();
}

const FONT = 'font-family="system-ui, -apple-system, \'Segoe UI\', Roboto, Helvetica, Arial, sans-serif"';

export function thumbnailSvg(course: { title: string; category: string }): string {
  const hue = hueOf(course.category);
  const lines = wrapText(course.title, 24, 4);
  const top = 150 - (lines.length - 1) * 24;
  const tspans = lines.map((line, i) => `<tspan x="40" y="${top + i * 48}">${escapeMarkup(line)}</tspan>`).join('');
  const label = escapeMarkup(`${course.title} (${course.category})`);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="360" viewBox="0 0 640 360" role="img" aria-labelledby="title">` +
    `<title id="title">${label}</title>` +
    `<rect width="640" height="360" fill="${background(hue)}"/>` +
    `<circle cx="590" cy="50" r="120" fill="hsl(${(hue + 40) % 360}, 60%, 45%)" opacity="0.35"/>` +
    `<text ${FONT} font-size="38" font-weight="700" fill="#ffffff">${tspans}</text>` +
    `<rect y="296" width="640" height="64" fill="#000000" opacity="0.3"/>` +
    `<text x="40" y="337" ${FONT} font-size="22" fill="#ffffff">${escapeMarkup(wrapText(course.category, 48, 1)[0] ?? '')}</text>` +
    `</svg>`
  );
}

export function avatarSvg(tutor: { name: string }): string {
  const initials = escapeMarkup(initialsOf(tutor.name));
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128" viewBox="0 0 128 128" role="img" aria-labelledby="title">` +
    `<title id="title">${escapeMarkup(tutor.name)}</title>` +
    `<circle cx="64" cy="64" r="64" fill="${background(hueOf(tutor.name))}"/>` +
    `<text x="64" y="64" dy="0.35em" text-anchor="middle" ${FONT} font-size="52" font-weight="600" fill="#ffffff">${initials}</text>` +
    `</svg>`
  );
}
