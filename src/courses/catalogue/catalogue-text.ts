/** Small, pure text helpers for turning scraped CSV cells into catalogue fields. */

/** FNV-1a: a stable 32-bit hash, so values derived from a title are the same on every run and machine. */
export function stableHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Zero-width characters and runs of whitespace (newlines included) become one space. */
export function collapse(text: string | undefined): string {
  return (text ?? '')
    .replace(/[\u200b-\u200d\ufeff]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Cuts at a word boundary and marks the cut, so a long title never ends mid-word. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.\-–—]+$/, '')}…`;
}

/** Scrapers write "missing" as empty, "NA", "None" or "Missing". */
export function isBlank(value: string | undefined): boolean {
  return !value || /^(na|n\/a|none|missing|null|-)?$/i.test(value.trim());
}

/** "124,980" and "500000.0" → whole numbers; anything unreadable → 0. */
export function parseCount(value: string | undefined): number {
  if (isBlank(value)) return 0;
  const n = Number(value!.replace(/[,\s]/g, ''));
  return Number.isFinite(n) && n > 0 ? Math.round(n) : 0;
}

/** Coursera stores lists as Python literals: ['a', "b's", 'c']. */
export function parsePythonList(value: string | undefined): string[] {
  const items: string[] = [];
  for (const m of (value ?? '').matchAll(/'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"/g)) {
    const item = collapse((m[1] ?? m[2]).replace(/\\(.)/g, '$1'));
    if (!isBlank(item)) items.push(item);
  }
  return items;
}

// Boilerplate that is about edX's terms or an expired promotion, not about the course.
const EDX_BOILERPLATE = [
  // The issuer ("HarvardX") is matched narrowly: scraped text glues it to the previous word ("RiotsHarvardX").
  /(?:[A-Z][a-z]*X|[A-Z]+x) requires individuals who enroll in its courses on edX to abide by the terms of the\s*edX honou?r code\.?/g,
  /(?:[A-Z][a-z]*X|[A-Z]+x) will take appropriate corrective action in response to violations of the edX honou?r code[^.]*\.?/g,
  /The Verified Certificate for this course is free\.?/gi,
  /Use the following coupon code[^:]*:\s*[A-Z0-9]{6,}(?=[A-Z][a-z]|\W|$)/g,
];

/** Strips edX boilerplate, restores the space lost between glued sentences, collapses whitespace, caps length. */
export function cleanDescription(text: string | undefined, max = 4000): string {
  let out = text ?? '';
  for (const pattern of EDX_BOILERPLATE) out = out.replace(pattern, ' ');
  // Any other sentence about the honour code or a coupon code is boilerplate too.
  const leftover = /\b(honou?r|coupon) code\b/i;
  if (leftover.test(out))
    out = out
      .split(/(?<=[.!?])/)
      .filter((sentence) => !leftover.test(sentence))
      .join('');
  out = out.replace(/([a-z)][.!?])([A-Z])/g, '$1 $2');
  return truncate(collapse(out), max);
}

/**
 * edX joins instructors with "-", which also occurs inside names ("Petra Bonfert-Taylor-Rémi Sharrock").
 * A one-word piece belongs to its neighbour, so it is re-joined rather than read as a person.
 */
export function firstEdxInstructor(value: string | undefined): string | null {
  if (isBlank(value)) return null;
  const parts = collapse(value)
    .split('-')
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0) return null;
  let name = parts[0];
  let i = 1;
  if (!name.includes(' ') && i < parts.length) name = `${name}-${parts[i++]}`;
  while (i < parts.length && !parts[i].includes(' ')) name = `${name}-${parts[i++]}`;
  return name;
}

/** Coursera appends badges and roles to names: "Andrew NgTop Instructor", "Head Teaching Assistant - X". */
export function cleanCourseraInstructor(value: string): string {
  return collapse(value.replace(/Top Instructor$/, '').replace(/^.*Teaching Assistant\s*-\s*/, ''));
}
