import { escapeHtml } from '../common/html';
import type { Certificate } from './certificates.repository';
import { formatIssueDate, platformLabel } from './certificate.mapper';

export interface VerifyPageLinks {
  download: string;
  credential: string;
}

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI","Noto Sans",sans-serif;color:#1b1f24;background:#f6f7f9}
main,.bar{max-width:720px;margin:0 auto;padding:24px}header{border-bottom:1px solid #d8dde3;background:#fff}.bar{padding:14px 24px}
.brand{font-weight:600;color:#3b4a5a;margin:0}h1{font-size:1.6rem;margin:0 0 12px}
.verdict{display:flex;gap:12px;align-items:flex-start;padding:16px;border-radius:8px;margin:0 0 20px;border:1px solid}
.verdict strong{display:block;font-size:1.15rem}.verdict p{margin:0}.mark{font-size:1.6rem;line-height:1;font-weight:700}
.valid{background:#e8f5e9;border-color:#81c784;color:#1b5e20}.revoked{background:#fdecea;border-color:#e57373;color:#8e1c1c}
.unknown{background:#eceff1;border-color:#b0bec5;color:#37474f}.verdict.test{background:#fff4e5;border-color:#ffb74d;color:#8a3b00}
.card{background:#fff;border:1px solid #d8dde3;border-radius:8px;padding:8px 20px}
dl{display:grid;grid-template-columns:max-content 1fr;gap:10px 24px;margin:12px 0}dt{color:#4a5663;font-weight:600}dd{margin:0;overflow-wrap:anywhere}
.holder{font-size:1.25rem;font-weight:700}code{font:15px/1.4 ui-monospace,monospace;white-space:nowrap}
.test{color:#8a3b00;font-weight:600}.links{margin:20px 0;padding:0;list-style:none}.links li{margin:6px 0}
a{color:#0b57d0}a:focus-visible{outline:3px solid #1a73e8;outline-offset:2px}footer{color:#4a5663;font-size:.9rem;margin-top:24px}
@media (max-width:520px){dl{grid-template-columns:1fr;gap:2px}dd{margin-bottom:10px}}`;

function page(nonce: string, title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow"><meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title><style nonce="${nonce}">${STYLE}</style></head>
<body><header><div class="bar"><p class="brand">Learning Platform · Certificate verification</p></div></header>
<main>
${body}
</main></body></html>`;
}

/** The verification page of a certificate that exists: valid, or revoked. Holder, course, date, platform and id only. */
export function renderVerifyPage(cert: Certificate, links: VerifyPageLinks, nonce: string): string {
  const valid = cert.revokedAt === null;
  const test = cert.mode === 'test';
  const platform = platformLabel(cert.mode);
  const verdict = valid
    ? test
      ? `<section class="verdict test" role="status" data-verdict="valid" data-test="true"><span class="mark" aria-hidden="true">!</span><div><strong>Test certificate: not a real one</strong>
<p>A partner's integration issued it in test mode. It proves nothing about the holder.</p></div></section>`
      : `<section class="verdict valid" role="status" data-verdict="valid" data-test="false"><span class="mark" aria-hidden="true">✓</span><div><strong>Valid certificate</strong>
<p>Issued by ${escapeHtml(platform)}. It has not been revoked.</p></div></section>`
    : `<section class="verdict revoked" role="status" data-verdict="revoked" data-test="${test}"><span class="mark" aria-hidden="true">✕</span><div><strong>This certificate has been revoked</strong>
<p>The issuer has withdrawn it: it is no longer valid.</p></div></section>`;
  const testNote = cert.mode === 'test' ? `<p class="test">Issued in test mode by a partner's integration: not a real certificate.</p>` : '';
  const more = valid
    ? `<ul class="links"><li><a href="${escapeHtml(links.download)}">Download the certificate (PDF)</a></li>
<li><a href="${escapeHtml(links.credential)}">Digital credential (Open Badges 3.0, signed; for wallets and other platforms)</a></li></ul>`
    : '';
  return page(
    nonce,
    `${valid ? 'Valid' : 'Revoked'} certificate ${cert.id}`,
    `<h1>Certificate of Completion</h1>
${verdict}
<section class="card" aria-label="Certificate details"><dl>
<dt>Awarded to</dt><dd class="holder" dir="auto" id="holder">${escapeHtml(cert.holderName)}</dd>
<dt>Course</dt><dd dir="auto" id="course">${escapeHtml(cert.courseTitle)}</dd>
<dt>Issued on</dt><dd><time datetime="${cert.issuedAt}">${formatIssueDate(cert.issuedAt)}</time></dd>
<dt>Issued by</dt><dd>${escapeHtml(platform)}</dd>
<dt>Certificate ID</dt><dd><code id="certificate-id">${cert.id}</code></dd>
</dl></section>
${testNote}${more}
<footer><p>This page is the issuer's own record of the certificate. Check that its address is on the issuer's site before relying on it.</p></footer>`,
  );
}

/** Unknown or malformed id: says so without echoing what was typed (no text injected into our page). */
export function renderUnknownCertificatePage(nonce: string): string {
  return page(
    nonce,
    'Certificate not found',
    `<h1>Certificate not found</h1>
<section class="verdict unknown" role="status" data-verdict="unknown"><span class="mark" aria-hidden="true">?</span><div><strong>No certificate has this ID</strong>
<p>Check the link or the ID printed on the certificate (it looks like <code>ECK-2026-7K3QX9M2PD</code>). A certificate that cannot be found here is not one we issued.</p></div></section>`,
  );
}

export function renderTooManyRequestsPage(nonce: string, retryAfter: string): string {
  return page(
    nonce,
    'Too many requests',
    `<h1>Too many requests</h1>
<section class="verdict unknown" role="status" data-verdict="rate-limited"><span class="mark" aria-hidden="true">…</span><div><strong>Please wait a moment</strong>
<p>Too many verifications came from your network. Try again in ${escapeHtml(retryAfter)} seconds.</p></div></section>`,
  );
}
