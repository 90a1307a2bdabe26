import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { startApp, TestApp } from '../support/app';
import { createAdmin, createCourse, createPartner, CreatedPartner } from '../support/factories';
import { HttpClient } from '../support/http';
import { toJsonSchema } from '../support/openapi-validator';

/**
 * The served OpenAPI document and the service accept and refuse the same requests (contract section 17).
 * For every operation with a JSON body or query parameters, fast-check generates requests from the document's own
 * schemas: valid ones (the document's validator accepts them) must never be answered 400 validation_failed, and
 * invalid ones (an unknown field, a wrong type, null where not nullable, a missing required field, a value out of
 * bounds; the document's validator refuses each) must be answered 400 validation_failed. Every response is also
 * validated against the document by the HttpClient, as in every integration test.
 */
jest.setTimeout(600_000);

type Json = Record<string, any>;

let t: TestApp;
let doc: Json;
let ajv: Ajv;
let partner: CreatedPartner;
let admin: CreatedPartner;
let webhookTarget: string;
let tutorId: number;

beforeAll(async () => {
  // Registration is limited per IP per hour: this test registers many times from one address.
  t = await startApp({ REGISTRATION_LIMIT_PER_HOUR: '100000' });
  doc = (await t.http.get('/docs/openapi.json')).body;
  ajv = new Ajv({ strict: false, allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  const definitions = Object.fromEntries(Object.entries<Json>(doc.components.schemas).map(([name, s]) => [name, toJsonSchema(s)]));
  ajv.addSchema({ $id: 'openapi-components', definitions });
  partner = await createPartner(t, { plan: 'enterprise' });
  admin = await createAdmin(t);
  // A webhook URL that resolves (the service checks that a target's host resolves): the service itself.
  webhookTarget = `${t.baseUrl}/hooks/agreement`;
  // Ids must name something that exists (an unknown tutor_id is a validation error by design): an existing tutor.
  tutorId = (await createCourse(t.db)).tutor.id;
});
afterAll(() => t?.close());

interface Operation {
  path: string;
  method: string;
  op: Json;
}

function operations(): Operation[] {
  return Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
    ['get', 'post', 'put', 'patch', 'delete'].filter((m) => item[m]).map((method) => ({ path, method, op: item[method] })),
  );
}

function resolve(schema: Json): Json {
  if (schema?.$ref) return resolve(doc.components.schemas[schema.$ref.split('/').pop()]);
  return schema;
}

const compiled = new Map<string, ValidateFunction>();
function validator(id: string, schema: Json): ValidateFunction {
  let fn = compiled.get(id);
  if (!fn) compiled.set(id, (fn = ajv.compile(toJsonSchema(schema))));
  return fn;
}

/** Values whose validity depends on the world rather than the shape (the document says so in their descriptions). */
function worldly(name: string, schema: Json): fc.Arbitrary<unknown> | null {
  if (schema.format === 'date-time' || /_at$/.test(name)) {
    return fc.integer({ min: 1, max: 30 * 24 }).map((h) => new Date(Date.now() + h * 3_600_000).toISOString());
  }
  if (name === 'url' && schema.type === 'string') return fc.constant(webhookTarget);
  if (name === 'tutor_id') return fc.constant(tutorId);
  if (schema.format === 'email') return fc.constantFrom('ada@example.com', 'dev.team+lp@acme.example', 'x@y.io');
  if (schema.format === 'uri' || name === 'website' || name.endsWith('_url'))
    return fc.constantFrom('https://videos.example.com/a.mp4', 'https://acme.example/x?y=1');
  return null;
}

const WORD = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ._-]{0,40}$/);

/** An arbitrary of values the schema accepts (bounded sizes; strings of plain characters). */
function arbitrary(schemaIn: Json, name = ''): fc.Arbitrary<unknown> {
  const schema = resolve(schemaIn);
  // An object whose anyOf only adds required fields (a learner by user_id or external_user_id): one branch each time.
  if (schema.properties && (schema.anyOf || schema.oneOf)) {
    const { anyOf, oneOf, ...rest } = schema;
    return fc.oneof(
      ...(anyOf ?? oneOf).map((branch: Json) => arbitrary({ ...rest, required: [...new Set([...(rest.required ?? []), ...(branch.required ?? [])])] }, name)),
    );
  }
  if (schema.anyOf) return fc.oneof(...schema.anyOf.filter((s: Json) => s.type !== 'null').map((s: Json) => arbitrary(s, name)));
  if (schema.enum) return fc.constantFrom(...schema.enum.filter((v: unknown) => v !== null));
  const type = Array.isArray(schema.type) ? schema.type.find((x: string) => x !== 'null') : schema.type;
  const special = worldly(name, schema);
  if (special) return special;
  switch (type) {
    case 'integer':
      return fc.integer({ min: schema.minimum ?? 0, max: Math.min(schema.maximum ?? 1_000_000, 2_147_483_647) });
    case 'number':
      return fc
        .double({ min: schema.minimum ?? 0, max: schema.maximum ?? 1000, noNaN: true, noDefaultInfinity: true })
        .map((n) => Math.round(n * 10) / 10)
        .filter((n) => n >= (schema.minimum ?? 0) && n <= (schema.maximum ?? 1000));
    case 'boolean':
      return fc.boolean();
    case 'string': {
      const min = schema.minLength ?? 1;
      const max = Math.min(schema.maxLength ?? 40, 60);
      if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= min && s.length <= max);
      return WORD.map((s) => s.trim() || 'a').map((s) => s.padEnd(min, 'x').slice(0, max));
    }
    case 'array': {
      const items = schema.uniqueItems
        ? fc.uniqueArray(arbitrary(schema.items, name), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 3) })
        : fc.array(arbitrary(schema.items, name), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 3) });
      return items;
    }
    case 'object':
    default: {
      const props: Json = schema.properties ?? {};
      const required: string[] = schema.required ?? [];
      const record = Object.fromEntries(Object.entries(props).map(([k, s]) => [k, arbitrary(s, k)]));
      return fc.record(record, { requiredKeys: required });
    }
  }
}

/** Values of the wrong JSON type for a schema. */
function wrongTypes(schemaIn: Json): unknown[] {
  const schema = resolve(schemaIn);
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : schema.properties ? ['object'] : [];
  const candidates: Array<[string, unknown]> = [
    ['string', 'text'],
    ['integer', 7],
    ['boolean', true],
    ['object', { a: 1 }],
    ['array', [1]],
    ['null', null],
  ];
  return candidates.filter(([type]) => !types.includes(type) && !(type === 'integer' && types.includes('number'))).map(([, v]) => v);
}

function keyFor(path: string, op: Json): HttpClient {
  if (Array.isArray(op.security) && op.security.length === 0) return t.http;
  return path.startsWith('/api/admin') ? admin.http : partner.http;
}

/** Path parameters that name nothing: valid requests then end in 404 (never 400), invalid ones in 400 first. */
function concretePath(path: string, op: Json): string {
  return path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const param = (op.parameters ?? []).find((p: Json) => p.in === 'path' && p.name === name);
    const type = resolve(param?.schema ?? {}).type;
    return type === 'integer' ? '2000000000' : `nothing-${name}`;
  });
}

async function send(o: Operation, body?: unknown, query?: Json) {
  const qs = query ? '?' + new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString() : '';
  return keyFor(o.path, o.op).request(o.method.toUpperCase(), concretePath(o.path, o.op) + qs, body === undefined ? {} : { body });
}

const bodyOps = () => operations().filter(({ op }) => op.requestBody?.content?.['application/json']?.schema);
const queryOps = () => operations().filter(({ op }) => (op.parameters ?? []).some((p: Json) => p.in === 'query'));

describe('the OpenAPI document and the service accept the same requests', () => {
  it('covers every operation that takes a JSON body or query parameters', () => {
    expect(bodyOps().length).toBeGreaterThanOrEqual(15);
    expect(queryOps().length).toBeGreaterThanOrEqual(10);
  });

  it('never answers 400 validation_failed to a body the document accepts', async () => {
    const refused: unknown[] = [];
    for (const o of bodyOps()) {
      const schema = o.op.requestBody.content['application/json'].schema;
      const validate = validator(`${o.method} ${o.path}`, schema);
      const bodies = fc.sample(arbitrary(schema), { numRuns: 16, seed: 20261123 }).filter((b) => validate(b));
      expect({ route: o.path, generated: bodies.length > 0 }).toEqual({ route: o.path, generated: true });
      for (const body of bodies) {
        const res = await send(o, body);
        if (res.status === 400) refused.push({ route: `${o.method.toUpperCase()} ${o.path}`, body, error: res.body?.error?.details ?? res.body?.error?.code });
      }
    }
    expect(refused).toEqual([]);
  });

  it('answers 400 validation_failed to every body the document refuses: unknown fields, wrong types, null, missing or out-of-bounds fields', async () => {
    for (const o of bodyOps()) {
      const schema = o.op.requestBody.content['application/json'].schema;
      const resolved = resolve(schema);
      const validate = validator(`${o.method} ${o.path}`, schema);
      const [valid] = fc.sample(
        arbitrary(schema).filter((b) => validate(b)),
        { numRuns: 1, seed: 7 },
      ) as Json[];
      const invalid: Array<[string, unknown]> = [['unknown field', { ...valid, not_a_field: 1 }]];
      for (const [name, propSchema] of Object.entries<Json>(resolved.properties ?? {})) {
        for (const wrong of wrongTypes(propSchema)) invalid.push([`${name}: ${JSON.stringify(wrong)}`, { ...valid, [name]: wrong }]);
        const p = resolve(propSchema);
        if (p.maxLength !== undefined) invalid.push([`${name} too long`, { ...valid, [name]: 'x'.repeat(p.maxLength + 1) }]);
        if (p.maximum !== undefined) invalid.push([`${name} above maximum`, { ...valid, [name]: p.maximum + 1 }]);
        if (p.minimum !== undefined) invalid.push([`${name} below minimum`, { ...valid, [name]: p.minimum - 1 }]);
        if (p.enum) invalid.push([`${name} not in enum`, { ...valid, [name]: 'not-one-of-them' }]);
      }
      for (const name of resolved.required ?? []) {
        const { [name]: _dropped, ...rest } = valid;
        invalid.push([`without ${name}`, rest]);
      }
      for (const [what, body] of invalid) {
        if (validate(body)) continue; // e.g. a string of digits where a string is expected: the document accepts it too
        const res = await send(o, body);
        expect({ route: `${o.method.toUpperCase()} ${o.path}`, what, status: res.status, code: res.body?.error?.code }).toEqual({
          route: `${o.method.toUpperCase()} ${o.path}`,
          what,
          status: 400,
          code: 'validation_failed',
        });
      }
    }
  });

  it('accepts the query parameters the document accepts and refuses the ones it refuses', async () => {
    for (const o of queryOps()) {
      const params = (o.op.parameters as Json[]).filter((p) => p.in === 'query');
      const validFor: Record<string, fc.Arbitrary<unknown>> = Object.fromEntries(params.map((p) => [p.name, arbitrary(p.schema, p.name)]));
      await fc.assert(
        fc.asyncProperty(fc.record(validFor, { requiredKeys: params.filter((p) => p.required).map((p) => p.name as string) as never[] }), async (query) => {
          const res = await send(o, undefined, query as Json);
          const route = `${o.method.toUpperCase()} ${o.path}`;
          expect({ route, query, answer: res.status === 400 ? res.body?.error : 'not 400' }).toEqual({ route, query, answer: 'not 400' });
        }),
        { numRuns: 5, seed: 20261123, endOnFailure: true },
      );
      for (const p of params) {
        const s = resolve(p.schema);
        const wrong: unknown[] = [];
        if (s.type === 'integer') wrong.push('abc', '1.5');
        if (s.minimum !== undefined) wrong.push(s.minimum - 1);
        if (s.maximum !== undefined) wrong.push(s.maximum + 1);
        if (s.enum) wrong.push('not-one-of-them');
        for (const value of wrong) {
          const res = await send(o, undefined, { [p.name]: value });
          expect({ route: `${o.method.toUpperCase()} ${o.path}`, param: p.name, value, status: res.status, code: res.body?.error?.code }).toEqual({
            route: `${o.method.toUpperCase()} ${o.path}`,
            param: p.name,
            value,
            status: 400,
            code: 'validation_failed',
          });
        }
      }
    }
  });

  it('documents the Idempotency-Key header on every POST, bounded as the service bounds it', async () => {
    for (const o of operations().filter((x) => x.method === 'post')) {
      const params: Json[] = (o.op.parameters ?? []).map((p: Json) => (p.$ref ? doc.components.parameters[p.$ref.split('/').pop()] : p));
      expect({ route: o.path, idempotencyKey: params.some((p: Json) => p.name === 'Idempotency-Key' && p.in === 'header') }).toEqual({
        route: o.path,
        idempotencyKey: true,
      });
    }
    const res = await partner.http.request('POST', '/api/search', { body: { query: 'python' }, headers: { 'Idempotency-Key': 'x'.repeat(256) } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'Idempotency-Key', message: expect.any(String) }]);
    expect(doc.components.parameters.IdempotencyKey.schema).toMatchObject({ minLength: 1, maxLength: 255 });
  });
});
