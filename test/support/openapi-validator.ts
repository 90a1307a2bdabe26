import { appendFileSync } from 'node:fs';
import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/** What one response looked like, as the HttpClient saw it. */
export interface ObservedResponse {
  method: string;
  /** Path with query string, e.g. `/api/courses?page=2`. */
  path: string;
  status: number;
  contentType: string | null;
  body: unknown;
}

type Json = Record<string, any>;

interface Route {
  template: string;
  pattern: RegExp;
  /** Literal segments rank before templated ones: `/api/webinars/public` wins over `/api/webinars/{id}`. */
  literals: number;
  item: Json;
}

const COMPONENTS_ID = 'openapi-components';

/**
 * Checks real responses against the OpenAPI document: the status must be documented for the operation, and a JSON body
 * must match the documented schema. Objects are closed (no undocumented fields) so that the docs cannot drift from
 * what the API really sends. Responses documented without a JSON schema (pages, PDFs, images) are not checked.
 */
export class OpenApiResponseValidator {
  private readonly ajv: Ajv;
  private readonly routes: Route[];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: Json) {
    this.ajv = new Ajv({ strict: false, allErrors: true, allowUnionTypes: true });
    addFormats(this.ajv);
    const definitions = Object.fromEntries(Object.entries<Json>(document.components?.schemas ?? {}).map(([name, s]) => [name, toJsonSchema(s)]));
    this.ajv.addSchema({ $id: COMPONENTS_ID, definitions });
    this.routes = Object.entries<Json>(document.paths)
      .map(([template, item]) => ({
        template,
        item,
        literals: template.split('/').filter((s) => s && !s.startsWith('{')).length,
        pattern: new RegExp('^' + template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^/}]+\}/g, '[^/]+') + '$'),
      }))
      .sort((a, b) => b.literals - a.literals);
  }

  /** Returns a description of what is wrong with the response, or null when it matches the document (or is not documented at all). */
  check(res: ObservedResponse): string | null {
    const pathname = res.path.split('?')[0].split('#')[0];
    const route = this.routes.find((r) => r.pattern.test(pathname));
    const operation = route?.item[res.method.toLowerCase()];
    if (!route || !operation) return null; // not a documented operation (unknown routes, pages, methods that do not exist)
    const where = `${res.method.toUpperCase()} ${route.template} → ${res.status}`;
    const responses: Json = operation.responses ?? {};
    const key = [String(res.status), `${String(res.status)[0]}XX`, 'default'].find((k) => k in responses);
    if (!key) return `${where}: status ${res.status} is not documented (documented: ${Object.keys(responses).join(', ')}); body: ${preview(res.body)}`;
    const content: Json | undefined = this.resolve(responses[key]).content;
    const jsonMedia = content && Object.keys(content).find((type) => /json/i.test(type));
    if (!jsonMedia || !content[jsonMedia].schema) return null; // documented without a JSON schema: a file or a page
    if (!res.contentType || !/json/i.test(res.contentType))
      return `${where}: documented as ${jsonMedia} but the response is ${res.contentType ?? 'without a content type'}`;
    const validate = this.validatorFor(`${res.method} ${route.template} ${key}`, content[jsonMedia].schema);
    if (validate(res.body)) return null;
    const errors = (validate.errors ?? []).map(
      (e) => `${e.instancePath || '(body)'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` "${e.params.additionalProperty}"` : ''}`,
    );
    return `${where}: body does not match the documented schema: ${[...new Set(errors)].join('; ')}; body: ${preview(res.body)}`;
  }

  /** Follows a `$ref` to a component (responses may be shared, like the 500). */
  private resolve(node: Json): Json {
    if (typeof node?.$ref !== 'string') return node;
    const target = node.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((at: any, part: string) => at?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], this.document);
    if (!target) throw new Error(`Unresolvable $ref ${node.$ref} in the OpenAPI document`);
    return this.resolve(target);
  }

  private validatorFor(id: string, schema: Json): ValidateFunction {
    let fn = this.compiled.get(id);
    if (!fn) {
      fn = this.ajv.compile(toJsonSchema(schema));
      this.compiled.set(id, fn);
    }
    return fn;
  }
}

/** OpenAPI 3.0 schema object → JSON Schema for ajv: `nullable`, component refs, and closed objects. */
export function toJsonSchema(schema: unknown): any {
  if (Array.isArray(schema)) return schema.map(toJsonSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const s: Json = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'example' || k === 'examples' || k === 'xml' || k === 'externalDocs') continue;
    if (k === 'properties') s.properties = Object.fromEntries(Object.entries<Json>(v).map(([p, ps]) => [p, toJsonSchema(ps)]));
    else if (k === '$ref' && typeof v === 'string') s.$ref = v.replace('#/components/schemas/', `${COMPONENTS_ID}#/definitions/`);
    else s[k] = toJsonSchema(v);
  }
  if (s.properties && s.additionalProperties === undefined && !s.allOf && !s.anyOf && !s.oneOf) s.additionalProperties = false;
  if (s.nullable === true) {
    delete s.nullable;
    if (s.type && !s.$ref) {
      s.type = [...(Array.isArray(s.type) ? s.type : [s.type]), 'null'];
      if (s.enum && !s.enum.includes(null)) s.enum = [...s.enum, null];
      return s;
    }
    return { anyOf: [s, { type: 'null' }] };
  }
  return s;
}

function preview(body: unknown): string {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return text === undefined ? '(empty)' : text.length > 600 ? `${text.slice(0, 600)}…` : text;
}

const validators = new Map<string, Promise<OpenApiResponseValidator>>();

/** The validator for the document a running app serves (fetched once per base URL and test file). */
export function validatorFor(baseUrl: string): Promise<OpenApiResponseValidator> {
  let v = validators.get(baseUrl);
  if (!v) {
    v = fetch(`${baseUrl}/docs/openapi.json`).then(async (res) => {
      if (!res.ok) throw new Error(`GET /docs/openapi.json answered ${res.status}`);
      return new OpenApiResponseValidator((await res.json()) as Json);
    });
    validators.set(baseUrl, v);
    v.catch(() => validators.delete(baseUrl));
  }
  return v;
}

/** A response hook for HttpClient: throws when a response contradicts the served OpenAPI document. */
export function openApiResponseCheck(baseUrl: string) {
  return async (res: ObservedResponse): Promise<void> => {
    const problem = (await validatorFor(baseUrl)).check(res);
    if (!problem) return;
    // OPENAPI_DRIFT_LOG=file lists every problem of a run in one file instead of failing at the first (for fixing the docs in bulk).
    if (process.env.OPENAPI_DRIFT_LOG) appendFileSync(process.env.OPENAPI_DRIFT_LOG, problem + '\n');
    else throw new OpenApiDriftError(problem);
  };
}

export class OpenApiDriftError extends Error {
  name = 'OpenApiDriftError';
  constructor(problem: string) {
    super(`Response contradicts the OpenAPI document (/docs/openapi.json): ${problem}`);
  }
}
