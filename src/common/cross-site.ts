import type { Request } from 'express';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
// The bodies a page on another site can send without a CORS preflight (HTML forms and simple fetches).
const FORM_TYPES = /^\s*(application\/x-www-form-urlencoded|multipart\/form-data|text\/plain)\s*(;|$)/i;

/**
 * Why a state-changing request to a cookie- or Basic-authenticated page looks like it came from another site, or null when it does not.
 * Browsers resend HTTP Basic credentials on cross-site requests, so the credentials alone prove nothing. Scripts
 * (no Origin, no Sec-Fetch-Site, a JSON body or none) and the dashboard's own page pass.
 */
export function crossSiteWrite(req: Request, ownOrigins: string[]): string | null {
  if (SAFE_METHODS.has(req.method)) return null;
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin' || site === 'none' ? null : `Sec-Fetch-Site: ${String(site)}`;
  const origin = req.headers.origin;
  if (origin !== undefined) return ownOrigins.includes(origin) ? null : `Origin: ${origin}`;
  // Neither header: a script, or a browser too old to send them, whose forms can only send these types.
  const type = req.headers['content-type'];
  return type !== undefined && FORM_TYPES.test(type) ? `Content-Type: ${type}` : null;
}

/** The origins the service's pages are served from: PUBLIC_BASE_URL's, and the Host the browser addressed. */
export function ownOrigins(req: Request, publicOrigin: string): string[] {
  const host = req.headers.host;
  return host ? [publicOrigin, `http://${host}`, `https://${host}`] : [publicOrigin];
}
