import type { OpenAPIObject } from '@nestjs/swagger';
import { ERROR_CODES, ErrorCode } from '../common/errors';
import type { Document, Operation, Response, Schema } from './document-types';
import { addValidationBounds } from './validation-bounds';
import { webhookSection } from './webhooks';

/**
 * Turns the document @nestjs/swagger builds (OpenAPI 3.0, numbers without integers, open objects) into the exact
 * OpenAPI 3.1 document partners build clients from: integer types, formats, closed request bodies, `null`
 * only where declared, every status and header the service can send, `Idempotency-Key` on every POST, and the nine
 * webhook events. Applied wherever the document is built (served at /docs/openapi.json, exported by the scripts).
 */
export function finishDocument(input: OpenAPIObject): Document {
  const doc = input as unknown as Document;
  doc.openapi = '3.1.0';
  // Relative to wherever the document is served from: the instance's own origin, whatever PUBLIC_BASE_URL says.
  doc.servers = [{ url: '/', description: 'This instance (the origin serving these docs).' }];
  const components = (doc.components ??= {});
  const schemas = (components.schemas ??= {});

  // Component schemas used by request bodies (transitively) are closed: the service refuses unknown fields.
  const requestSchemas = new Set<string>();
  for (const { op } of operations(doc)) {
    const schema = op.requestBody?.content?.['application/json']?.schema;
    if (schema) collectRefs(schema, schemas, requestSchemas);
  }
  addValidationBounds(schemas, requestSchemas);
  // Update DTOs made with PartialType keep their creation counterpart's array bounds.
  for (const name of requestSchemas) {
    const create = /^Update(.+)$/.exec(name) && schemas[name.replace(/^Update/, 'Create')];
    if (!create?.properties) continue;
    for (const [prop, s] of Object.entries(schemas[name].properties ?? {})) {
      const from = create.properties[prop];
      if (s.type === 'array' && from?.type === 'array') for (const k of ['minItems', 'maxItems', 'uniqueItems']) if (from[k] !== undefined) s[k] ??= from[k];
    }
  }
  for (const [name, schema] of Object.entries(schemas)) {
    schemas[name] = fixSchema(schema, '');
    if (requestSchemas.has(name)) {
      closeObjects(schemas[name]);
      requireOneLearnerId(schemas[name], name);
      httpUrls(schemas[name]);
    }
  }

  components.headers = { ...components.headers, ...HEADERS };
  components.parameters = { ...components.parameters, IdempotencyKey: IDEMPOTENCY_KEY, IdempotencyKeyIgnored: IDEMPOTENCY_KEY_IGNORED };
  const responses = (components.responses = { ...components.responses, ...errorResponses() });

  for (const { path, method, op } of operations(doc)) {
    // The API key is needed unless the operation names its own requirements (none, or a webinar token).
    const keyed = !Array.isArray(op.security) || op.security.some((r) => typeof r === 'object' && r !== null && 'api_key' in r);
    const api = path.startsWith('/api/');
    const hasBody = ['post', 'put', 'patch'].includes(method);
    for (const param of op.parameters ?? []) if (param.schema) param.schema = fixSchema(param.schema, param.name ?? '');
    const json = op.requestBody?.content?.['application/json'];
    if (json?.schema) {
      const body = json.schema;
      json.schema = fixSchema(body, '');
      if (!body.$ref) closeObjects(json.schema);
    }
    for (const response of Object.values(op.responses ?? {})) {
      if (response.content) for (const media of Object.values(response.content)) if (media.schema) media.schema = fixSchema(media.schema, '');
    }

    // Every POST: the Idempotency-Key header (honoured on keyed routes, ignored on keyless ones).
    if (method === 'post') {
      op.parameters = (op.parameters ?? []).filter((p) => p.name !== 'Idempotency-Key');
      op.parameters.push({ $ref: `#/components/parameters/${keyed ? 'IdempotencyKey' : 'IdempotencyKeyIgnored'}` });
    }

    // Statuses any such operation can answer, each with the shared response unless the controller documented it.
    const add = (status: string, name: string) => (op.responses[status] ??= { $ref: `#/components/responses/${name}` });
    add('405', 'MethodNotAllowed');
    add('503', 'ServiceUnavailable');
    if (hasBody) {
      add('400', 'BadRequest');
      add('413', 'PayloadTooLarge');
      add('415', 'UnsupportedMediaType');
    }
    if ((op.parameters ?? []).some((p) => p.in === 'query' || p.in === 'header')) add('400', 'BadRequest');
    if (keyed && api) {
      add('401', 'Unauthorized');
      add('429', 'RateLimited');
    }
    // The idempotency layer answers every keyed POST, whatever its controller documents.
    if (keyed && method === 'post') for (const code of IDEMPOTENCY_REFUSALS) documentErrorCode(op, code);

    // Response headers: the request id everywhere; rate-limit and quota headers once a key is accepted; Retry-After on 429 and 503.
    for (const [status, response] of Object.entries(op.responses)) {
      if (response.$ref) continue;
      const headers = (response.headers ??= {});
      headers['X-Request-Id'] ??= { $ref: '#/components/headers/X-Request-Id' };
      if (keyed && api && status !== '401' && status !== '503' && status !== '500') {
        for (const h of ['RateLimit-Policy', 'RateLimit', 'X-Quota-Limit', 'X-Quota-Remaining', 'X-Quota-Reset'])
          headers[h] ??= { $ref: `#/components/headers/${h}` };
      }
      if (status === '429' || status === '503') headers['Retry-After'] ??= { $ref: '#/components/headers/Retry-After' };
      if (keyed && api && method === 'post' && /^[24]/.test(status)) headers['Idempotent-Replayed'] ??= { $ref: '#/components/headers/Idempotent-Replayed' };
    }

    if (!op.description) op.description = describe(op, keyed, path);
  }

  const hooks = webhookSection();
  Object.assign(schemas, hooks.schemas);
  doc.webhooks = hooks.webhooks;
  // Shared responses no operation ended up using are dropped (linters flag unused components).
  const used = JSON.stringify({ paths: doc.paths, webhooks: doc.webhooks });
  for (const name of Object.keys(responses)) if (!used.includes(`"#/components/responses/${name}"`)) delete responses[name];
  return doc;
}

/** What a keyed POST with an Idempotency-Key can be refused with. */
const IDEMPOTENCY_REFUSALS: ErrorCode[] = ['idempotency_request_in_progress', 'idempotency_key_reused'];

/** Adds a code to the operation's response for that code's status: into the controller's own, or as a new one. */
function documentErrorCode(op: Operation, code: ErrorCode): void {
  const status = String(ERROR_CODES[code][0]);
  const response = (op.responses[status] ??= envelopeResponse('', []));
  const examples = response.content?.['application/json']?.examples as Record<string, unknown> | undefined;
  if (response.$ref || !examples) throw new Error(`${status} of ${String(op.operationId)} is not an error envelope with examples: cannot add ${code}`);
  if (examples[code]) return;
  examples[code] = errorExample(code);
  response.description = `${typeof response.description === 'string' ? response.description : ''} ${describeCode(code)}`.trim();
}

/** Request fields holding a link accept http(s) URLs only, as the service checks. */
function httpUrls(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(httpUrls);
  if (!node || typeof node !== 'object') return;
  const s = node as Schema;
  for (const [name, prop] of Object.entries(s.properties ?? {})) {
    const types = Array.isArray(prop.type) ? prop.type : [prop.type];
    if ((name === 'url' || name === 'website' || name.endsWith('_url')) && types.includes('string')) {
      prop.format ??= 'uri';
      prop.pattern ??= '^https?://';
    }
  }
  for (const [k, v] of Object.entries(s)) if (k !== 'example' && k !== 'examples') httpUrls(v);
}

/** A learner is named by `user_id` or `external_user_id` (a course's tutor by `tutor_id` or `tutor`); the service refuses a body with neither. */
function requireOneLearnerId(schema: Schema, name: string): void {
  const props = schema.properties ?? {};
  const required = schema.required ?? [];
  if (props.user_id && props.external_user_id && !required.includes('user_id') && !required.includes('external_user_id') && !schema.anyOf) {
    schema.anyOf = [{ required: ['user_id'] }, { required: ['external_user_id'] }];
  }
  // A course's tutor: `tutor_id` or a new `tutor`, never both; required on creation.
  if (props.tutor_id && props.tutor && !schema.oneOf && !schema.not) {
    if (name.startsWith('Create')) schema.oneOf = [{ required: ['tutor_id'] }, { required: ['tutor'] }];
    else schema.not = { properties: { tutor_id: {}, tutor: {} }, required: ['tutor_id', 'tutor'] };
  }
}

function operations(doc: Document): Array<{ path: string; method: string; op: Operation }> {
  const out: Array<{ path: string; method: string; op: Operation }> = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch', 'head', 'options']) {
      const op = item[method];
      if (op) out.push({ path, method, op });
    }
  }
  return out;
}

function collectRefs(node: unknown, schemas: Record<string, Schema>, into: Set<string>): void {
  if (Array.isArray(node)) return node.forEach((n) => collectRefs(n, schemas, into));
  if (!node || typeof node !== 'object') return;
  const ref = (node as Schema).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    const name = ref.slice('#/components/schemas/'.length);
    if (into.has(name)) return;
    into.add(name);
    collectRefs(schemas[name], schemas, into);
  }
  for (const value of Object.values(node)) collectRefs(value, schemas, into);
}

function closeObjects(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(closeObjects);
  if (!node || typeof node !== 'object') return;
  const s = node as Schema;
  if (s.properties && s.additionalProperties === undefined && !s.allOf && !s.oneOf && !s.anyOf) s.additionalProperties = false;
  for (const [k, v] of Object.entries(s)) if (k !== 'example' && k !== 'examples') closeObjects(v);
}

/** Fields whose numbers have fractions; every other number the API reads or writes is a whole number. */
const FRACTIONAL = new Set(['rating', 'score', 'max_duration_hours']);
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** OpenAPI 3.0 schema → 3.1 with exact types: `nullable` as a type union, integers, formats. */
function fixSchema(node: Schema, name: string): Schema;
function fixSchema(node: unknown, name: string): unknown;
function fixSchema(node: unknown, name: string): unknown {
  if (Array.isArray(node)) return node.map((n) => fixSchema(n, name));
  if (!node || typeof node !== 'object') return node;
  const copy: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node as Schema)) {
    if (k === 'properties') copy[k] = Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([p, ps]) => [p, fixSchema(ps, p)]));
    else if (k === 'items' || ['allOf', 'oneOf', 'anyOf'].includes(k)) copy[k] = fixSchema(v, name);
    else if (k === 'additionalProperties' && typeof v === 'object') copy[k] = fixSchema(v, name);
    else copy[k] = v;
  }
  const s: Schema = copy;
  if (s.type === 'number' && !FRACTIONAL.has(name)) s.type = 'integer';
  if (s.type === 'string' && !s.format && !s.enum) {
    if (name === 'email' || name.endsWith('_email')) s.format = 'email';
    else if (
      (/_at$/.test(name) || (typeof s.example === 'string' && ISO_TIME.test(s.example))) &&
      (s.example === undefined || s.example === null || (typeof s.example === 'string' && ISO_TIME.test(s.example)))
    )
      s.format = 'date-time';
    else if (
      (name === 'url' || name.endsWith('_url')) &&
      (s.example === undefined || (typeof s.example === 'string' && /^https?:\/\/[\x21-\x7e]+$/.test(s.example)))
    )
      s.format = 'uri';
  }
  // OpenAPI 3.1 (JSON Schema 2020-12): exclusive bounds are numbers, `nullable` is a type union.
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (s[exclusive] === true) {
      s[exclusive] = s[bound];
      delete s[bound];
    } else if (s[exclusive] === false) delete s[exclusive];
  }
  if (s.nullable !== undefined) {
    const nullable = s.nullable === true;
    delete s.nullable;
    if (nullable) {
      if (s.type) {
        s.type = [...new Set([...(Array.isArray(s.type) ? s.type : [s.type]), 'null'])];
        if (s.enum && !s.enum.includes(null)) s.enum = [...s.enum, null];
      } else {
        const { description, example, ...rest } = s;
        return { ...(description ? { description } : {}), ...(example !== undefined ? { example } : {}), anyOf: [rest, { type: 'null' }] };
      }
    }
  }
  if (s.example !== undefined && s.examples === undefined && (s.type || s.$ref === undefined)) {
    // JSON Schema 2020-12 keyword; OpenAPI 3.1 keeps `example` only as deprecated.
    s.examples = [s.example];
    delete s.example;
  }
  return s;
}

function describe(op: Operation, keyed: boolean, path: string): string {
  const summary = String(op.summary ?? '').replace(/\.$/, '');
  const who = !keyed ? 'No API key needed.' : path.startsWith('/api/admin') ? 'Needs an admin API key.' : 'Needs your API key (X-API-Key).';
  return `${summary}. ${who}`;
}

const HEADERS: Record<string, unknown> = {
  'X-Request-Id': {
    description: 'The id of this request (yours, when you sent a well-formed `X-Request-Id`: 1–128 of `A-Za-z0-9._-`). Quote it to support.',
    schema: { type: 'string', examples: ['req_6f1c2b8e4d0a4f2a9b7c1d3e5f708192'] },
  },
  'RateLimit-Policy': {
    description: 'Your per-second rate limit: `"per-key";q=<requests>;w=1`.',
    schema: { type: 'string', examples: ['"per-key";q=10;w=1'] },
  },
  RateLimit: {
    description: 'What is left of it: `"per-key";r=<remaining>;t=<seconds to reset>`.',
    schema: { type: 'string', examples: ['"per-key";r=9;t=1'] },
  },
  'X-Quota-Limit': {
    description: 'Calls your plan allows per calendar month (UTC); absent on unlimited plans.',
    schema: { type: 'integer', minimum: 0, examples: [500] },
  },
  'X-Quota-Remaining': { description: 'Calls left this month; absent on unlimited plans.', schema: { type: 'integer', minimum: 0, examples: [458] } },
  'X-Quota-Reset': {
    description: 'When the monthly quota resets: Unix seconds; absent on unlimited plans.',
    schema: { type: 'integer', minimum: 0, examples: [1796083200] },
  },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0, examples: [1] } },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored response of an earlier request with the same `Idempotency-Key` and body.',
    schema: { type: 'string', enum: ['true'] },
  },
  Allow: { description: 'The methods this path serves.', schema: { type: 'string', examples: ['GET, HEAD'] } },
};

const IDEMPOTENCY_KEY: Record<string, unknown> = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: 1–255 characters of your choosing (a UUID is fine). The first response (status and body) is kept 24 h per partner, mode and key; a retry with the same body gets it again with `Idempotent-Replayed: true`, another body is 422 `idempotency_key_reused`, a retry while the first is still running is 409 `idempotency_request_in_progress`.',
  schema: { type: 'string', minLength: 1, maxLength: 255, examples: ['5f0c1a2b-7d3e-4c8f-9a6b-2e1d0c9b8a7f'] },
};

const IDEMPOTENCY_KEY_IGNORED: Record<string, unknown> = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'Accepted and ignored on this keyless route: without a key, callers could not be told apart, so nothing is replayed.',
  schema: { type: 'string' },
};

const describeCode = (code: ErrorCode) => `\`${code}\`: ${ERROR_CODES[code][1]}`;

const errorExample = (code: ErrorCode) => ({
  value: { status: 'error', error: { code, message: ERROR_CODES[code][1], request_id: 'req_6f1c2b8e4d0a4f2a9b7c1d3e5f708192' } },
});

function envelopeResponse(description: string, codes: ErrorCode[], headers: Record<string, unknown> = {}): Response {
  return {
    description: `${description} ${codes.map(describeCode).join(' ')}`,
    headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' }, ...headers },
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/ErrorEnvelopeDto' },
        examples: Object.fromEntries(codes.map((c) => [c, errorExample(c)])),
      },
    },
  };
}

function errorResponses(): Record<string, Response> {
  const retry = { 'Retry-After': { $ref: '#/components/headers/Retry-After' } };
  return {
    BadRequest: envelopeResponse('The request is malformed.', ['validation_failed', 'invalid_json']),
    Unauthorized: envelopeResponse('The key was refused.', [
      'missing_api_key',
      'invalid_api_key',
      'revoked_api_key',
      'account_suspended',
      'endpoint_not_in_plan',
      'monthly_quota_exceeded',
    ]),
    MethodNotAllowed: envelopeResponse('This path does not serve the method; `Allow` and `details.allow` list the ones it does.', ['method_not_allowed'], {
      Allow: { $ref: '#/components/headers/Allow' },
    }),
    PayloadTooLarge: envelopeResponse('The body is too large (100 kB; 512 kB for bulk enrolment).', ['payload_too_large']),
    UnsupportedMediaType: envelopeResponse('A body must be sent as JSON.', ['unsupported_media_type']),
    RateLimited: envelopeResponse('Too many requests.', ['rate_limited'], retry),
    ServiceUnavailable: envelopeResponse('A dependency is down or too slow; retry shortly.', ['service_unavailable'], retry),
  };
}
