import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startApp, TestApp } from '../support/app';

/** The SDK's committed types and route facts are exactly what the served OpenAPI document generates. */
let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(() => t.close());

it('matches the served OpenAPI document (otherwise run `npm run sdk:generate` and commit)', async () => {
  const res = await t.http.get('/docs/openapi.json');
  expect(res.status).toBe(200);
  const dir = mkdtempSync(join(tmpdir(), 'sdk-types-'));
  try {
    const doc = join(dir, 'openapi.json');
    writeFileSync(doc, res.text);
    const check = await promisify(execFile)(process.execPath, [join(__dirname, '../../scripts/sdk-generate.js'), '--check', doc]).then(
      () => 'up to date',
      (err: { stderr?: string }) => err.stderr ?? String(err),
    );
    expect(check).toBe('up to date');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
