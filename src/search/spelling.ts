/** Words worth correcting: long enough and made of ASCII letters (numbers, codes and other scripts are left alone). */
export function correctable(word: string): boolean {
  return word.length >= 4 && word.length <= 30 && /^[a-z]+$/.test(word);
}
