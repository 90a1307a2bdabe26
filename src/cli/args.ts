/** Minimal argv parsing: positional words and `--name value` / `--flag` options. */
export interface ParsedArgs {
  words: string[];
  options: Record<string, string | true>;
}

export function parseArgs(argv: string[]): ParsedArgs {
  const words: string[] = [];
  const options: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const [name, inline] = a.slice(2).split('=', 2);
      if (inline !== undefined) options[name] = inline;
      else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) options[name] = argv[++i];
      else options[name] = true;
    } else {
      words.push(a);
    }
  }
  return { words, options };
}

export class UsageError extends Error {}

export function requireOption(args: ParsedArgs, name: string): string {
  const v = args.options[name];
  if (typeof v !== 'string' || !v.trim()) throw new UsageError(`--${name} is required`);
  return v;
}
