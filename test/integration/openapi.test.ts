import SwaggerParser from '@apidevtools/swagger-parser';
import { startApp, TestApp } from '../support/app';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(() => t.close());

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3 document', async () => {
    const doc = (await t.http.get('/docs/openapi.json')).body;
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined();
  });

  it('documents every operation with a success response and its error responses', async () => {
    const doc = (await t.http.get('/docs/openapi.json')).body;
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const statuses = Object.keys(op.responses ?? {});
        expect({ path, method, ok: statuses.some((s) => s.startsWith('2')) }).toEqual({ path, method, ok: true });
        if (path.startsWith('/api/')) {
          expect({ path, method, errors: statuses.some((s) => /^[45]/.test(s)) }).toEqual({ path, method, errors: true });
        }
      }
    }
  });

  it('marks public operations as needing no key and keyed ones with the X-API-Key scheme', async () => {
    const doc = (await t.http.get('/docs/openapi.json')).body;
    expect(doc.security).toEqual([{ api_key: [] }]);
    expect(doc.paths['/health/live'].get.security).toEqual([]);
    expect(doc.paths['/api/courses'].get.security).toBeUndefined();
  });
});
