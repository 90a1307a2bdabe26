/** Shared shapes and transforms of request text (DTOs of several features), defined once. */

/** `@Transform(trimString)`: surrounding whitespace is not part of a name or title; non-strings pass through to validation. */
export const trimString = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);

/** A web origin as partners list it (https://host[:port], no path): validated on input, re-checked before it reaches a header. */
export const ORIGIN_PATTERN = /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/;
