import { displayText } from './text';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text or attribute value safe inside server-rendered HTML, without bidirectional controls (see displayText). */
export function escapeHtml(value: string): string {
  return displayText(value).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}
