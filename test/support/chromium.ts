import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type APIResponse, type Browser, type BrowserContext, type Page } from 'playwright-core';

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

/**
 * Serves `publicBase` (the PUBLIC_BASE_URL the service writes into its links) from the test server. A page closed
 * while one of its requests is in flight disposes the request context; that request's failure is the closing, not a fault.
 */
export async function servePublicBaseFrom(context: BrowserContext, publicBase: string, baseUrl: string): Promise<void> {
  const closing = (error: unknown) =>
    context.pages().every((page) => page.isClosed()) || /disposed|has been closed/.test(error instanceof Error ? error.message : String(error));
  await context.route(`${publicBase}/**`, async (route) => {
    let response: APIResponse;
    try {
      response = await route.fetch({ url: route.request().url().replace(publicBase, baseUrl) });
    } catch (error) {
      if (closing(error)) return;
      throw error;
    }
    await route.fulfill({ response }).catch((error: unknown) => {
      if (!closing(error)) throw error;
    });
  });
}

/** Chromium with its own synthetic camera (a moving test pattern), microphone (a beep) and screen, granted without a prompt. */
export function launchWithFakeMedia(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--use-fake-device-for-media-stream',
      '--use-fake-ui-for-media-stream',
      '--autoplay-policy=no-user-gesture-required',
    ],
  });
}

const SCREENSHOTS = join(__dirname, '..', '..', 'docs', 'screenshots');

/**
 * A full-page picture for the docs, `docs/screenshots/<name>.png`, taken when UPDATE_SCREENSHOTS=1 refreshes them.
 * Other runs skip it: no test looks at the picture, and taking it into a temporary folder cost Chromium seconds of
 * CPU per file (a full Swagger UI page is a 1–2 MB PNG) and left a folder in /tmp each run.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
