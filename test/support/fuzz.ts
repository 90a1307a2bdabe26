import fc from 'fast-check';

/** Generators of hostile HTTP input and the invariants every response must keep (issue 9, item 3). */

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

// Values that have broken parsers, casts and PostgreSQL columns before. Lowercase SQL keywords only:
// the leak check looks for `SELECT `/`INSERT ` in responses, and some routes echo their input.
export const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\u202eevil\u202c',
  '\u200b',
  '😀🚀',
  '\ud800',
  'x\udfffy',
  '\uffff',
  '\r\n\t',
  'null',
  'undefined',
  'true',
  '0',
  '-1',
  '1.5',
  '1e999',
  'NaN',
  'Infinity',
  '-Infinity',
  '0x1f',
  '１２３',
  '9'.repeat(40),
  "' or 1=1 --",
  '1; select pg_sleep(5)',
  '../../../etc/passwd',
  '%00',
  '<script>alert(1)</script>',
  '{{7*7}}${7*7}',
  '__proto__',
  'constructor',
  'İ',
  'ﬃ',
  '2026-13-45T99:99:99Z',
  'http://127.0.0.1:1/x',
  'javascript:alert(1)',
];

export const NASTY_NUMBERS = [
  -1,
  0,
  -0,
  0.5,
  1.5,
  -2.5,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 32,
  2 ** 53,
  2 ** 53 + 2,
  2 ** 63,
  2 ** 64,
  1e21,
  1e308,
  -1e308,
  5e-324,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
  1_000_001,
  99_999_999_999,
];

const latin1Char = fc
  .integer({ min: 0x20, max: 0xff })
  .filter((c) => c !== 0x7f)
  .map((c) => String.fromCharCode(c));

/** A string a header can carry (fetch refuses NUL, CR, LF and anything above U+00FF). */
export const headerString = (maxLength = 80) => fc.string({ unit: latin1Char, maxLength });

export const hugeString = fc
  .tuple(fc.constantFrom('a', 'é', '😀', '\u0000', ' ', '\ud800', '9'), fc.integer({ min: 300, max: 120_000 }))
  .map(([ch, n]) => ch.repeat(Math.ceil(n / ch.length)));

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...NASTY_STRINGS), weight: 4 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 300 }), weight: 2 },
  { arbitrary: fc.string({ maxLength: 20 }).map((s) => `${s}\u0000${s}`), weight: 2 },
  { arbitrary: hugeString, weight: 1 },
);

export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  { arbitrary: fc.constantFrom(...NASTY_NUMBERS), weight: 4 },
  { arbitrary: fc.integer(), weight: 2 },
  { arbitrary: fc.double(), weight: 2 }, // NaN and ±Infinity serialise as null
);

export const hostileScalar: fc.Arbitrary<Json> = fc.oneof(
  { arbitrary: hostileString, weight: 4 },
  { arbitrary: hostileNumber, weight: 4 },
  { arbitrary: fc.boolean(), weight: 1 },
  { arbitrary: fc.constant(null), weight: 1 },
);

function nest(depth: number, asArray: boolean): Json {
  let v: Json = 1;
  for (let i = 0; i < depth; i++) v = asArray ? [v] : { a: v };
  return v;
}

export const hostileValue: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    { arbitrary: hostileScalar, weight: 6 },
    { arbitrary: fc.array(tie('value'), { maxLength: 4 }), weight: 1 },
    { arbitrary: fc.dictionary(hostileKey(), tie('value'), { maxKeys: 4 }), weight: 1 },
    { arbitrary: fc.tuple(fc.integer({ min: 20, max: 3000 }), fc.boolean()).map(([d, a]) => nest(d, a)), weight: 1 },
  ),
})).value;

export function hostileKey(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom('__proto__', 'constructor', 'prototype', '', 'x'.repeat(500), 'a.b', '$where', 'id', 'partner_id', 'mode', 'status'),
    fc.string({ maxLength: 12 }),
  );
}

/** Raw bodies that are not what a JSON object should be: broken JSON, other JSON types, deep nesting, oversize. */
export const rawBodies: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '{',
    '{"a":',
    'nul',
    "{'a':1}",
    '{"a":1}garbage',
    '\ufeff{}',
    '{"a":"\\ud800"}',
    '{"a":"\\u0000"}',
    '{"__proto__":{"polluted":1}}',
    '{"constructor":{"prototype":{"polluted":1}}}',
    '1',
    '"str"',
    '[]',
    'true',
    'null',
    '{"a":1,"a":2}',
    '{"a":1e999999}',
    '{"a":-0}',
    '\u0000',
  ),
  fc.integer({ min: 1000, max: 16_000 }).map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)),
  fc.integer({ min: 1000, max: 40_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
  fc.integer({ min: 99_000, max: 150_000 }).map((n) => `{"a":"${'x'.repeat(n)}"}`),
);

/** Path segment values that are not a valid id (sent already percent-encoded where needed). */
export const badPathSegment: fc.Arbitrary<string> = fc.oneof(
  {
    arbitrary: fc.constantFrom(
      '-1',
      '0',
      '00',
      '1.5',
      '1e3',
      'abc',
      '%00',
      '1%00',
      '..%2f',
      '..%2F..%2Fetc%2Fpasswd',
      '%2e%2e',
      '99999999999999999999',
      '2147483648',
      '2147483647',
      '9223372036854775808',
      '-2147483649',
      '%20',
      '%201',
      'NaN',
      'Infinity',
      '0x1f',
      '%F0%9F%98%80',
      '%ED%A0%80',
      '%C0%AE',
      '%',
      '%zz',
      'null',
      '__proto__',
      'constructor',
      'wbn_',
      'whk_' + 'z'.repeat(60),
      'TST-2026-%00',
      'a'.repeat(5000),
      '1'.repeat(300),
      '%E2%80%AE',
    ),
    weight: 4,
  },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 30 }).map(encodeSafely), weight: 2 },
  { arbitrary: fc.integer().map(String), weight: 1 },
);

export function encodeSafely(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '')) + '%ED%A0%80'; // a lone surrogate, UTF-8 encoded anyway
  }
}

/** One query parameter in every shape a parser might turn it into. */
export function queryParam(name: string, valid: fc.Arbitrary<string>): fc.Arbitrary<string[]> {
  const hostileText = fc.oneof(
    hostileString.map((s) => encodeSafely(s.slice(0, 3000))),
    fc.constantFrom('%', '%zz', '%00', '%ED%A0%80', '-1', '0', '101', '1.5', '1e2', '99999999999999999999'),
  );
  const value = fc.oneof(valid.map(encodeSafely), hostileText);
  return fc.oneof(
    { arbitrary: fc.constant<string[]>([]), weight: 2 },
    { arbitrary: value.map((v) => [`${name}=${v}`]), weight: 4 },
    { arbitrary: fc.tuple(value, value).map(([a, b]) => [`${name}=${a}`, `${name}=${b}`]), weight: 2 },
    { arbitrary: value.map((v) => [`${name}[]=${v}`, `${name}[]=${v}`]), weight: 1 },
    { arbitrary: value.map((v) => [`${name}[x]=${v}`]), weight: 1 },
    { arbitrary: value.map((v) => [`${name}[__proto__][y]=${v}`]), weight: 1 },
    { arbitrary: fc.constantFrom<string[]>([`${name}=`], [name], [`${name}[0][1][2][3][4][5]=1`]), weight: 1 },
  );
}

export const extraQuery: fc.Arbitrary<string[]> = fc.oneof(
  { arbitrary: fc.constant<string[]>([]), weight: 4 },
  {
    arbitrary: fc.constantFrom<string[]>(['foo=1'], ['__proto__[x]=1'], ['constructor[prototype][x]=1'], ['a'.repeat(4000) + '=1'], ['%=%'], ['&&&']),
    weight: 1,
  },
);

const LEAK = /\/node_modules|\bat \w+ \(|SELECT |INSERT |QueryFailedError|\/work\//;
const CODE = /^[a-z][a-z0-9_]*$/;

export interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  label: string;
}

export interface Received {
  status: number;
  contentType: string;
  text: string;
  json: unknown;
}

/** Everything wrong with one response, as short sentences (empty when it keeps every invariant). */
export function problemsOf(req: Sent, res: Received): string[] {
  const out: string[] = [];
  if (res.status >= 500) out.push(`status ${res.status}`);
  if (LEAK.test(res.text)) out.push(`leaks internals: ${res.text.match(LEAK)![0]}`);
  const isJson = res.contentType.includes('application/json');
  const pathOnly = new URL(req.path, 'http://fuzz.invalid').pathname; // as the server saw it: fetch resolves %2e%2e
  if (res.status >= 400 && res.status < 500) {
    const verify404 = res.status === 404 && /^\/api\/certificates\/verify\/[^/]+$/.test(pathOnly);
    if (verify404) {
      if (JSON.stringify(res.json) !== '{"valid":false,"certificate":null}') out.push('verify 404 body is not { valid: false, certificate: null }');
    } else if (pathOnly.startsWith('/api') && !isJson) {
      out.push(`4xx under /api is not JSON (${res.contentType || 'no content type'})`);
    } else if (isJson) {
      const b = res.json as { status?: unknown; error?: { code?: unknown; message?: unknown; request_id?: unknown } } | null;
      const ok =
        !!b &&
        b.status === 'error' &&
        !!b.error &&
        typeof b.error.code === 'string' &&
        CODE.test(b.error.code) &&
        typeof b.error.message === 'string' &&
        b.error.message.length > 0 &&
        typeof b.error.request_id === 'string' &&
        b.error.request_id.length > 0;
      if (!ok) out.push('4xx body is not the error envelope');
    }
  }
  return out;
}

export function describeExchange(req: Sent, res: Received | { error: string }): string {
  const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);
  const headers = Object.entries(req.headers)
    .filter(([k]) => k !== 'accept')
    .map(([k, v]) => `${k}: ${cut(v, 60)}`)
    .join('; ');
  const got = 'error' in res ? `request failed: ${res.error}` : `${res.status} ${cut(res.text, 300)}`;
  return `${req.label} ${req.method} ${cut(req.path, 200)} [${headers}] body=${req.body === undefined ? '-' : JSON.stringify(cut(req.body, 200))} → ${got}`;
}
