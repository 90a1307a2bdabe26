import SwaggerParser from '@apidevtools/swagger-parser';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startApp, TestApp } from '../support/app';
import { OpenApiResponseValidator } from '../support/openapi-validator';

// The linter and the type generator run as child processes that load large tools: slow on a loaded machine.
jest.setTimeout(120_000);

const ROOT = join(__dirname, '..', '..');

let t: TestApp;
let doc: any;
let dir: string;
let docFile: string;
beforeAll(async () => {
  t = await startApp();
  doc = (await t.http.get('/docs/openapi.json')).body;
  dir = mkdtempSync(join(tmpdir(), 'openapi-'));
  docFile = join(dir, 'openapi.json');
  writeFileSync(docFile, JSON.stringify(doc));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t.close();
});

/** Runs a devDependency's CLI with this Node; a non-zero exit still yields its output. */
async function runCli(script: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, [join(ROOT, 'node_modules', script), ...args], {
    cwd: ROOT,
    maxBuffer: 20 * 1024 * 1024,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  }).catch((e) => ({ stdout: String(e.stdout ?? ''), stderr: String(e.stderr ?? e.message) }));
}

function operations(): Array<{ path: string; method: string; op: any }> {
  return Object.entries<Record<string, any>>(doc.paths).flatMap(([path, item]) => Object.entries<any>(item).map(([method, op]) => ({ path, method, op })));
}

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3 document', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined();
  });

  it('lints clean with @redocly/cli (recommended rules, redocly.yaml)', async () => {
    const run = await runCli('@redocly/cli/bin/cli.js', ['lint', '--format=json', '--config', join(ROOT, 'redocly.yaml'), docFile]);
    const start = run.stdout.indexOf('{');
    expect({ stderr: start < 0 ? run.stderr : '', parsed: start >= 0 }).toEqual({ stderr: '', parsed: true });
    const report = JSON.parse(run.stdout.slice(start));
    const problems = report.problems.map((p: any) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);

  it('lints clean with Spectral (spectral:oas, .spectral.yaml): no errors, no warnings', async () => {
    const run = await runCli('@stoplight/spectral-cli/dist/index.js', [
      'lint',
      '--ruleset',
      join(ROOT, '.spectral.yaml'),
      '--format',
      'json',
      '--quiet',
      docFile,
    ]);
    const start = run.stdout.indexOf('[');
    expect({ stderr: start < 0 ? run.stderr : '', parsed: start >= 0 }).toEqual({ stderr: '', parsed: true });
    const results = JSON.parse(run.stdout.slice(start)).map((r: any) => `${r.severity} ${r.code}: ${r.message} at ${r.path.join('.')}`);
    expect(results).toEqual([]);
  }, 120_000);

  it('documents every operation with a success response and its error responses', () => {
    for (const { path, method, op } of operations()) {
      const statuses = Object.keys(op.responses ?? {});
      expect({ path, method, ok: statuses.some((s) => s.startsWith('2')) }).toEqual({ path, method, ok: true });
      if (path.startsWith('/api/')) {
        // Redocly's operation-4xx-response is off only for the health probes (redocly.yaml): every /api operation has one.
        expect({ path, method, clientErrors: statuses.some((s) => s.startsWith('4')) }).toEqual({ path, method, clientErrors: true });
      }
    }
  });

  /** A response, following a `$ref` to the shared ones under components.responses. */
  const resolve = (response: any): any => (typeof response?.$ref === 'string' ? doc.components.responses[response.$ref.split('/').pop()] : response);

  it('gives every link a response or request carries the uri format', () => {
    expect(doc.components.schemas.TutorSummaryDto.properties.avatar.format).toBe('uri');
    expect(doc.components.schemas.AttendanceDto.properties.join_url.format).toBe('uri');
    const unformatted: string[] = [];
    for (const [name, schema] of Object.entries<any>(doc.components.schemas)) {
      for (const [prop, s] of Object.entries<any>(schema.properties ?? {})) {
        const link = prop === 'url' || prop === 'avatar' || prop.endsWith('_url');
        if (link && [s.type].flat().includes('string') && s.format !== 'uri') unformatted.push(`${name}.${prop}`);
      }
    }
    expect(unformatted).toEqual([]);
  });

  it('documents the idempotency refusals on every keyed POST: 409 in progress, 422 key reused', () => {
    // Keyed = authenticated by X-API-Key (the default security); WHIP and WHEP take a webinar's bearer token instead.
    const byApiKey = (security: unknown) => !Array.isArray(security) || security.some((r) => typeof r === 'object' && r !== null && 'api_key' in r);
    const keyedPosts = operations().filter(({ method, op }) => method === 'post' && byApiKey(op.security));
    expect(keyedPosts.map(({ path }) => path)).toEqual(
      expect.arrayContaining([
        '/api/partners/me/production-access',
        '/api/admin/production-access/{id}/approve',
        '/api/admin/courses',
        '/api/connect/webhooks',
        '/api/connect/webhooks/{id}/rotate-secret',
      ]),
    );
    const missing: string[] = [];
    for (const { path, op } of keyedPosts) {
      for (const [status, code] of [
        ['409', 'idempotency_request_in_progress'],
        ['422', 'idempotency_key_reused'],
      ]) {
        const response = resolve(op.responses[status]);
        if (!response?.content?.['application/json']?.examples?.[code] || !String(response.description).includes(code))
          missing.push(`POST ${path} ${status} ${code}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('documents the X-Request-Id header on every response, the 500 included', () => {
    const missing: string[] = [];
    for (const { path, method, op } of operations()) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (!resolve(response)?.headers?.['X-Request-Id']) missing.push(`${method.toUpperCase()} ${path} ${status}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('gives every operation a unique operationId, a summary and a tag described at the top level', () => {
    const ids = operations().map(({ op }) => op.operationId);
    expect(ids.filter((id, i) => !id || ids.indexOf(id) !== i)).toEqual([]);
    const described = new Map<string, string>((doc.tags ?? []).map((tag: any) => [tag.name, tag.description]));
    for (const { path, method, op } of operations()) {
      expect({ path, method, summary: typeof op.summary === 'string' && op.summary.length > 0 }).toEqual({ path, method, summary: true });
      expect({ path, method, tags: (op.tags ?? []).filter((tag: string) => !described.get(tag)) }).toEqual({ path, method, tags: [] });
      expect({ path, method, tagged: (op.tags ?? []).length > 0 }).toEqual({ path, method, tagged: true });
    }
  });

  it('marks public operations as needing no key and keyed ones with the X-API-Key scheme', () => {
    expect(doc.security).toEqual([{ api_key: [] }]);
    expect(doc.components.securitySchemes.api_key).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(doc.paths['/health/live'].get.security).toEqual([]);
    expect(doc.paths['/api/partners/register'].post.security).toEqual([]);
    expect(doc.paths['/api/courses'].get.security).toBeUndefined();
  });

  it('names the origin serving it as its server (relative) and carries a licence', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String), license: { name: expect.any(String), url: expect.any(String) } });
  });
});

describe('response validation against the document (used by every HttpClient of startApp)', () => {
  const ok = (data: unknown) => ({ status: 'success', data });
  const user = { id: 1, external_user_id: 'u-1', name: 'Ada', email: 'ada@example.com', created_at: '2026-01-01T00:00:00.000Z' };
  const check = (res: { method: string; path: string; status: number; body: unknown; contentType?: string }) =>
    new OpenApiResponseValidator(doc).check({ contentType: 'application/json; charset=utf-8', ...res });

  it('accepts a response that matches its route and status', () => {
    expect(check({ method: 'GET', path: '/api/users/1?x=1', status: 200, body: ok(user) })).toBeNull();
    const error = { status: 'error', error: { code: 'user_not_found', message: 'No such user.', request_id: 'req_1' } };
    expect(check({ method: 'GET', path: '/api/users/1', status: 404, body: error })).toBeNull();
    expect(check({ method: 'GET', path: '/api/users/1', status: 500, body: { ...error, error: { ...error.error, code: 'internal_error' } } })).toBeNull();
  });

  it('names route, status and schema error for a wrong type, a missing field or an undocumented field', () => {
    expect(check({ method: 'GET', path: '/api/users/1', status: 200, body: ok({ ...user, id: '1' }) })).toMatch(
      /^GET \/api\/users\/\{id\} → 200: .*\/data\/id must be (integer|number)/,
    );
    const { email, ...noEmail } = user;
    expect(email).toBeDefined();
    expect(check({ method: 'GET', path: '/api/users/1', status: 200, body: ok(noEmail) })).toMatch(/must have required property 'email'/);
    expect(check({ method: 'GET', path: '/api/users/1', status: 200, body: ok({ ...user, secret: 'x' }) })).toMatch(
      /must NOT have additional properties "secret"/,
    );
  });

  it('refuses an undocumented status and a non-JSON body where JSON is documented', () => {
    expect(check({ method: 'GET', path: '/api/users/1', status: 418, body: ok(user) })).toMatch(/status 418 is not documented/);
    expect(check({ method: 'GET', path: '/api/users/1', status: 200, body: '<html>', contentType: 'text/html' })).toMatch(/documented as application\/json/);
  });

  it('prefers literal path segments and skips what the document does not describe', () => {
    expect(check({ method: 'GET', path: '/api/webinars/public', status: 200, body: ok({ nope: true }) })).toMatch(/^GET \/api\/webinars\/public → 200/);
    expect(check({ method: 'GET', path: '/api/nowhere', status: 404, body: {} })).toBeNull();
    expect(check({ method: 'PUT', path: '/api/users/1', status: 404, body: {} })).toBeNull();
  });
});
