import { randomInt } from 'node:crypto';
import { startApp, TestApp } from '../../support/app';
import { createAdmin, createPartner, CreatedPartner } from '../../support/factories';

/**
 * Issue 26, findings 8 and 9. `__proto__` and `constructor` keys slipped past the unknown-field check (class-transformer
 * drops them before the whitelist looks), while every other unknown field is 400; and a body of thousands of unknown
 * keys got an error listing every one of them (a 90 kB body, a 538 kB answer).
 */
let t: TestApp;
let partner: CreatedPartner;
let admin: CreatedPartner;
let writeRoutes: Array<{ method: string; path: string; keyless: boolean }>;

beforeAll(async () => {
  t = await startApp({ TRUST_PROXY: '1' });
  partner = await createPartner(t, { plan: 'enterprise' });
  admin = await createAdmin(t);
  const doc = (await (await fetch(`${t.baseUrl}/docs/openapi.json`)).json()) as { paths: Record<string, Record<string, any>> };
  writeRoutes = [];
  for (const [template, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const content = op.requestBody?.content ?? {};
      // WHIP and WHEP take an SDP offer, not a JSON object: there is no field to be unknown.
      if (!['post', 'put', 'patch'].includes(method) || !content['application/json'] || content['application/sdp']) continue;
      // Any id will do: a route answers a bad body with 400 before it looks at the id.
      const path = template.replace(/\{[^}]+\}/g, template.startsWith('/api/connect') ? 'whk_0000000000000000000000' : '1');
      writeRoutes.push({ method: method.toUpperCase(), path, keyless: op.security?.length === 0 });
    }
  }
});
afterAll(() => t.close());

const send = (method: string, path: string, raw: string, key?: string) =>
  t.http.request(method, path, {
    raw,
    key,
    headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': `198.19.${randomInt(0, 255)}.${randomInt(1, 255)}` },
  });

describe('prototype keys are unknown fields', () => {
  it.each(['__proto__', 'constructor', 'prototype'])('every write route refuses a top-level %s key with 400 validation_failed', async (name) => {
    expect(writeRoutes.length).toBeGreaterThan(20);
    const answers: string[] = [];
    for (const route of writeRoutes) {
      const key = route.keyless ? undefined : route.path.startsWith('/api/admin') ? admin.key : partner.key;
      const res = await send(route.method, route.path, `{"${name}": {"polluted": true}}`, key);
      const named = Array.isArray(res.body?.error?.details) && res.body.error.details.some((d: { field: string }) => d.field === name);
      answers.push(`${route.method} ${route.path}: ${res.status} ${res.body?.error?.code}${named ? '' : ' (field not named)'}`);
    }
    expect(answers).toEqual(writeRoutes.map((r) => `${r.method} ${r.path}: 400 validation_failed`));
  });

  it('refuses them inside nested objects too, named by their path', async () => {
    const raw = '{"enrollments":[{"course_id":1,"user_id":1,"constructor":{"prototype":{"polluted":true}}},{"course_id":1,"user_id":1,"__proto__":{"x":1}}]}';
    const res = await send('POST', '/api/enroll/bulk', raw, partner.key);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual(
      expect.arrayContaining([
        { field: 'enrollments[0].constructor', message: 'enrollments[0].constructor is not an allowed field' },
        { field: 'enrollments[1].__proto__', message: 'enrollments[1].__proto__ is not an allowed field' },
      ]),
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('error details are capped', () => {
  it('lists at most 50 problems and says how many more there were', async () => {
    const body: Record<string, number> = {};
    for (let i = 0; i < 9000; i++) body[`k${i}`] = 1;
    const res = await send('POST', '/api/users', JSON.stringify(body), partner.key);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    const details = res.body.error.details as Array<{ field: string; message: string; omitted?: number }>;
    expect(details).toHaveLength(51);
    expect(details.slice(0, 50).every((d) => d.omitted === undefined)).toBe(true);
    // 9,000 unknown fields, and the missing name and email (a message for each rule they break).
    const last = details[50];
    expect(last.field).toBe('*');
    expect(last.omitted).toBeGreaterThanOrEqual(9002 - 50);
    expect(last.message).toBe(`${last.omitted} more problems not listed`);
    expect(res.text.length).toBeLessThan(8000);
  });

  it('leaves 50 problems or fewer as they are', async () => {
    const body: Record<string, number> = { name: 1 };
    for (let i = 0; i < 10; i++) body[`k${i}`] = 1;
    const res = await send('POST', '/api/users', JSON.stringify(body), partner.key);
    expect(res.status).toBe(400);
    expect(res.body.error.details.some((d: { field: string }) => d.field === '*')).toBe(false);
    expect(res.body.error.details.length).toBeGreaterThan(10);
  });
});
