const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** Every string one edit away (delete, transpose, replace, insert): with pg_trgm's similarity this catches "pyhton". */
export function edits1(word: string): string[] {
  const out = new Set<string>();
  for (let i = 0; i <= word.length; i++) {
    const a = word.slice(0, i);
    const b = word.slice(i);
    if (b) out.add(a + b.slice(1));
    if (b.length > 1) out.add(a + b[1] + b[0] + b.slice(2));
    for (const c of LETTERS) {
      if (b) out.add(a + c + b.slice(1));
      out.add(a + c + b);
    }
  }
  out.delete(word);
  return [...out];
}

/** Words worth correcting: long enough and made of ASCII letters (numbers, codes and other scripts are left alone). */
export function correctable(word: string): boolean {
  return word.length >= 4 && word.length <= 30 && /^[a-z]+$/.test(word);
}
