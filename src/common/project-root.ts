import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The repository root (the folder holding package.json), whether running from src/ or dist/src/. */
export function projectRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
  return dir;
}
