import { registerDecorator, ValidationOptions } from 'class-validator';

const ISO_WITH_OFFSET = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-](\d{2}):?(\d{2}))$/;

/** Parses an ISO 8601 date-time that carries a UTC offset ("Z" or ±hh:mm); null for anything else, including impossible dates. */
export function parseIsoWithOffset(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const m = ISO_WITH_OFFSET.exec(value);
  if (!m) return null;
  const [year, month, day, hour, minute, second = 0] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((p) => (p === undefined ? undefined : Number(p))) as number[];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) return null;
  if (m[8] !== 'Z' && (Number(m[9]) > 23 || Number(m[10]) > 59)) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** An ISO 8601 date-time with offset, no further than `maxPastMs` in the past. */
export function IsIsoTimestamp(maxPastMs: number, options?: ValidationOptions) {
  return (target: object, property: string) =>
    registerDecorator({
      name: 'isIsoTimestamp',
      target: target.constructor,
      propertyName: property,
      options,
      validator: {
        validate: (value: unknown) => {
          const date = parseIsoWithOffset(value);
          return date !== null && date.getTime() >= Date.now() - maxPastMs;
        },
        defaultMessage: (args) =>
          parseIsoWithOffset(args?.value) === null
            ? `${property} must be an ISO 8601 date-time with a UTC offset, e.g. 2026-12-01T15:00:00Z`
            : `${property} must not be more than ${Math.round(maxPastMs / 60_000)} minutes in the past`,
      },
    });
}
