/** Shared shapes and transforms of request text (DTOs of several features), defined once. */

/** `@Transform(trimString)`: surrounding whitespace is not part of a name or title; non-strings pass through to validation. */
export const trimString = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);

/** A web origin as partners list it (https://host[:port], no path): validated on input, re-checked before it reaches a header. */
export const ORIGIN_PATTERN = /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/;

// Embedding and override controls (LRE, RLE, PDF, LRO, RLO) and the isolates (LRI, RLI, FSI, PDI).
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;

/**
 * A name or title as we display it (pages, PDF, credential): without the bidirectional controls that reorder text,
 * since an override still reorders what is inside an isolated element. Right-to-left letters order themselves and
 * are untouched, as are the marks (LRM, RLM, ALM). Stored values keep what the partner sent.
 */
export function displayText(value: string): string {
  return value.replace(BIDI_CONTROLS, '');
}
