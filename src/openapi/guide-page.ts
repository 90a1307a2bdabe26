import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Request, Response } from 'express';
import { marked } from 'marked';
import { escapeHtml } from '../common/html';
import { projectRoot } from '../common/project-root';

/** URL of the partner's guide; the other docs/*.md pages are served below it by name. */
export const GUIDE_PATH = '/docs/guide';

const STYLE = `body{font:16px/1.55 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
code,pre{font:14px/1.45 ui-monospace,monospace;background:#f4f4f4;border-radius:4px}code{padding:.1em .3em}pre{padding:.8em;overflow:auto}
pre code{padding:0}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ddd;padding:.3em .6em;vertical-align:top;text-align:left}
nav{margin-bottom:1.5rem;font-size:.95em}a{color:#0b5cad}`;

function page(title: string, body: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>
<nav><a href="${GUIDE_PATH}">Partner's guide</a> · <a href="/docs">API reference (Swagger UI)</a> · <a href="/docs/openapi.json">OpenAPI document</a></nav>
${body}</body></html>`;
}

/**
 * The docs/*.md pages written for partners. The others (contributors' conventions, the threat model, operators'
 * durability notes) stay in the repository: they describe our insides, not the API.
 */
export const PARTNER_PAGES: readonly string[] = ['partner-guide', 'webhooks', 'certificates', 'bulk-enrollment', 'enrollment-and-credits', 'decisions'];

/** The guide's policy: no script at all, inline styles only, and no other site may frame it. */
export const GUIDE_CSP =
  "default-src 'none'; script-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * Renders the partner's docs/*.md pages once at start-up: the partner's guide at /docs/guide and each other page at
 * /docs/guide/{name} (e.g. /docs/guide/webhooks). References like `docs/webhooks.md` in the text become links to those pages.
 */
export function renderGuidePages(dir = join(projectRoot(), 'docs')): Map<string, string> {
  const pages = new Map<string, string>();
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => PARTNER_PAGES.includes(f.replace(/\.md$/, '')) && f.endsWith('.md'));
  } catch {
    return pages; // no docs folder (a stripped image): the routes answer 404
  }
  const names = new Set(files.map((f) => f.replace(/\.md$/, '')));
  for (const file of files) {
    const name = file.replace(/\.md$/, '');
    const markdown = readFileSync(join(dir, file), 'utf8');
    let html = marked.parse(markdown, { async: false, gfm: true });
    html = html.replace(/<code>(?:docs\/)?([A-Za-z0-9_-]+)\.md<\/code>/g, (whole, ref: string) =>
      names.has(ref) ? `<a href="${ref === 'partner-guide' ? GUIDE_PATH : `${GUIDE_PATH}/${ref}`}"><code>${ref}.md</code></a>` : whole,
    );
    const title = /^#\s+(.+)$/m.exec(markdown)?.[1] ?? name;
    pages.set(name === 'partner-guide' ? '' : name, page(title, html));
  }
  return pages;
}

/** GET /docs/guide and /docs/guide/{name}: the rendered pages, no script, not frameable. */
export function guideHandler(pages: Map<string, string>) {
  return (req: Request, res: Response): void => {
    const name = String(req.params.name ?? '');
    const html = pages.get(name);
    res.setHeader('Content-Security-Policy', GUIDE_CSP);
    if (html === undefined) return routeNotFound(req, res);
    res.status(200).type('html').send(html);
  };
}

/** 404 `route_not_found` in the envelope, for paths below /docs that are answered outside Nest's routing. */
export function routeNotFound(req: Request, res: Response): void {
  res.status(404).json({
    status: 'error',
    error: { code: 'route_not_found', message: 'No route matches this method and path.', request_id: String((req as { id?: string }).id ?? 'unknown') },
  });
}
