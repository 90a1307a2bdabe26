import { execFileSync } from 'node:child_process';

/** The Chromium the browser tests drive (`npm test`'s pretest step makes sure there is one): CHROMIUM_PATH or the first on PATH. */
export function chromiumPath(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
    try {
      const found = execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
      if (found) return found;
    } catch {
      // not this one
    }
  }
  throw new Error('Chromium not found: run `apt-get install chromium` or set CHROMIUM_PATH (npm test does this check first).');
}
