/**
 * Words worth correcting: long enough and made of ASCII letters, or of three letters or more with digits after them
 * ("covid19", typed without the hyphen the titles have: a word no course uses, "covid" is); numbers, codes and other
 * scripts are left alone.
 */
export function correctable(word: string): boolean {
  return word.length >= 4 && word.length <= 30 && /^[a-z]{3}[a-z]*[0-9]*$/.test(word);
}

// Each letter's neighbours on a QWERTY keyboard (same row and the rows above and below).
const KEYBOARD_ROWS = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm'];
const NEIGHBOURS = new Map<string, string>();
KEYBOARD_ROWS.forEach((row, r) => {
  [...row].forEach((letter, c) => {
    const near = [row[c - 1], row[c + 1], KEYBOARD_ROWS[r - 1]?.[c], KEYBOARD_ROWS[r - 1]?.[c + 1], KEYBOARD_ROWS[r + 1]?.[c], KEYBOARD_ROWS[r + 1]?.[c - 1]];
    NEIGHBOURS.set(letter, near.filter(Boolean).join(''));
  });
});

const near = (a: string | undefined, b: string) => a !== undefined && (a === b || (NEIGHBOURS.get(a) ?? '').includes(b));

/**
 * The words `typed` may have been meant as, by the slips people make at a keyboard: a letter dropped ("brin" for
 * brain), two neighbours swapped ("brian"), a letter doubled or an extra neighbouring key struck ("braain",
 * "brsain"), a key next to the right one ("brsin"), the space between two words missed ("bigdata" for "big data").
 * Replacing a letter by a distant key is left out: "swift" is not taken for "shift", nor "rust" for "must".
 */
export function typingSlips(typed: string): string[] {
  const out = new Set<string>();
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  for (let p = 0; p <= typed.length; p++) {
    for (const l of letters) out.add(typed.slice(0, p) + l + typed.slice(p));
  }
  for (let p = 2; p <= typed.length - 2; p++) out.add(`${typed.slice(0, p)} ${typed.slice(p)}`);
  for (let p = 0; p < typed.length; p++) {
    const extra = typed[p];
    if (near(typed[p - 1], extra) || near(typed[p + 1], extra)) out.add(typed.slice(0, p) + typed.slice(p + 1));
    if (p < typed.length - 1) out.add(typed.slice(0, p) + typed[p + 1] + typed[p] + typed.slice(p + 2));
    for (const l of NEIGHBOURS.get(extra) ?? '') out.add(typed.slice(0, p) + l + typed.slice(p + 1));
  }
  out.delete(typed);
  return [...out];
}

/**
 * Corrections one edit away that are typing slips, when there are any: the others (a distant key struck) are dropped,
 * so that "linx" becomes linux (a dropped letter), not line or link. Candidates further away are kept as they are.
 */
export function preferSlips<T extends { fix: string; oneEdit: boolean }>(typed: string, candidates: T[]): T[] {
  const slips = new Set(typingSlips(typed));
  const plausible = candidates.filter((c) => !c.oneEdit || slips.has(c.fix));
  return plausible.some((c) => c.oneEdit) ? plausible : candidates;
}

/**
 * The correction a misspelt word would get without context, for telling the query's other misspelt words what it is
 * about: the first candidate that is a typing slip ("moden" → modern, not model, a distant key, though more courses
 * use it), as preferSlips keeps them.
 */
export function firstPlausible<T extends { fix: string; oneEdit: boolean }>(typed: string, candidates: T[]): T {
  return preferSlips(typed, candidates)[0];
}
