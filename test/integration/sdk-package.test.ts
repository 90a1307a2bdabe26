import { ChildProcess, execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PartnerApi, SDK_VERSION } from '../../sdk/src';
import { startApp, TestApp } from '../support/app';
import { createCourse, createPartner, CreatedPartner, unique } from '../support/factories';
import { waitFor } from '../support/webhook-receiver';

/**
 * The partner's path through sdk/README.md: the packed tarball installs into an empty folder, every example of the
 * README compiles there with `tsc --strict` and runs against the real service. And the SDK's generated files are what
 * the served OpenAPI document generates, so it cannot drift from the service.
 */
const SDK = join(__dirname, '../../sdk');
const TSC = join(__dirname, '../../node_modules/typescript/bin/tsc');
const README = readFileSync(join(SDK, 'README.md'), 'utf8');
const EXAMPLES = [...README.matchAll(/<!-- example: (\S+)[^>]*-->\s*```ts\n([\s\S]*?)```\n/g)].map((m) => ({ file: m[1], code: m[2] }));
const run = promisify(execFile);

describe('sdk/README.md', () => {
  it('shows every example file verbatim, and no TypeScript that is not one of them', () => {
    expect(EXAMPLES.map((e) => e.file).sort()).toEqual(
      readdirSync(join(SDK, 'examples'))
        .map((f) => `examples/${f}`)
        .sort(),
    );
    for (const { file, code } of EXAMPLES) expect({ file, code }).toEqual({ file, code: readFileSync(join(SDK, file), 'utf8') });
    expect(README.match(/```ts\n/g)).toHaveLength(EXAMPLES.length);
    expect(packageJson(SDK).version).toBe(SDK_VERSION);
  });
});

// Packing builds the SDK with tsc and the examples are compiled again: minutes on a loaded 2-core machine.
describe('the packed SDK in an empty project', () => {
  let t: TestApp;
  let app: string;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    // Its own queue, so the deliveries to the example receivers are sent by this file's worker.
    t = await startApp({ REDIS_PREFIX: `${process.env.REDIS_PREFIX}-sdk-pack` });
    app = mkdtempSync(join(tmpdir(), 'partner-app-'));
    const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', app], { cwd: SDK });
    const tarball = stdout.trim().split('\n').pop()!;
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({
        name: 'partner-app',
        private: true,
        dependencies: { '@partner-api/sdk': `file:./${tarball}`, express: '^5.1.0' },
        devDependencies: { '@types/express': '^5.0.0', '@types/node': '^20.19.0' },
      }),
    );
    // Works offline once the npm cache holds the packages; otherwise from the npm registry.
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: app });
    mkdirSync(join(app, 'src'));
    for (const { file } of EXAMPLES) copyFileSync(join(SDK, file), join(app, 'src', file.replace('examples/', '')));
    // What `tsc --init` writes, strict included, with CommonJS output.
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'commonjs',
          target: 'ES2022',
          types: ['node'],
          esModuleInterop: true,
          skipLibCheck: true,
          outDir: 'out',
          rootDir: 'src',
        },
      }),
    );
    await run(process.execPath, [TSC, '-p', app]);
  }, 600_000);
  afterAll(async () => {
    for (const child of children) child.kill();
    await t?.close();
    if (app) rmSync(app, { recursive: true, force: true });
  });

  it('has the types and route facts the served OpenAPI document generates (else run `npm run sdk:generate` and commit)', async () => {
    const res = await t.http.get('/docs/openapi.json');
    expect(res.status).toBe(200);
    const doc = join(app, 'openapi.json');
    writeFileSync(doc, res.text);
    const check = await run(process.execPath, [join(__dirname, '../../scripts/sdk-generate.js'), '--check', doc]).then(
      () => 'up to date',
      (err: Error & { stderr?: string }) => err.stderr || err.message,
    );
    expect(check).toBe('up to date');
  }, 90_000);

  const env = (p: CreatedPartner, extra: Record<string, string> = {}) => ({ ...process.env, PARTNER_API_KEY: p.key, PARTNER_API_URL: t.baseUrl, ...extra });
  const example = async (name: string, p: CreatedPartner) => (await run(process.execPath, [join(app, 'out', name)], { env: env(p) })).stdout;

  it('installs with its one dependency and runs the quick start, twice without a second write', async () => {
    expect(readdirSync(join(app, 'node_modules/@partner-api/sdk')).sort()).toEqual(['LICENSE', 'README.md', 'dist', 'package.json']);
    expect(Object.keys(packageJson(join(app, 'node_modules/@partner-api/sdk')).dependencies ?? {})).toEqual(['openapi-fetch']);
    const p = await createPartner(t);
    await createCourse(t.db, { creditCost: 10 });
    const first = await example('quick-start.js', p);
    expect(first).toMatch(/^\d+ courses; enrolling in ".+" \(\d+ credits\)\nbalance: 100\nenrolled: \d+, \d+ credits left \(request \S+\)\n$/);
    const second = await example('quick-start.js', p);
    expect(second).toMatch(/balance: 100\nalready enrolled: \{"enrollment_id":\d+\}\n$/);
    const user = await p.http.get<{ data: { id: number } }>('/api/users/external/acme-user-1001');
    const enrolments = await p.http.get<{ data: { total: number } }>(`/api/users/${user.body.data.id}/enrollments`);
    expect(enrolments.body.data.total).toBe(1);
    const ledger = await p.http.get<{ data: { total: number } }>(`/api/credits/transactions/${user.body.data.id}`);
    expect(ledger.body.data.total).toBe(2);
  }, 90_000);

  it('runs the retries, pagination and errors examples', async () => {
    const p = await createPartner(t);
    expect(await example('retries.js', p)).toMatch(/^same transaction: true, replayed: true\nbalance: 50 \(request \S+, 1 attempt\)\n$/);
    expect(await example('pagination.js', p)).toMatch(/^learners: 1\n\S+Z 50\n$/);
    expect(await example('errors.js', p)).toMatch(/^404 user_not_found: .+ \(request \S+\)\n$/);
  }, 90_000);

  it.each(['webhooks-express.js', 'webhooks-node-http.js'])(
    'receives and verifies real deliveries with %s',
    async (name) => {
      const p = await createPartner(t);
      const secret = `example-secret-${unique('s')}`;
      const port = await freePort();
      const child = spawn(process.execPath, [join(app, 'out', name)], { env: env(p, { PORT: String(port), WEBHOOK_SECRET: secret }) });
      children.push(child);
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
      await waitFor(() => out.includes('listening'), 30_000, 'the example to listen');
      const url = `http://127.0.0.1:${port}/webhooks/partner-api`;
      const api = new PartnerApi({ apiKey: p.key, baseUrl: t.baseUrl });
      const { data: hook } = await api.post('/api/connect/webhooks', { body: { url, events: ['user.registered'], secret } });
      const external = unique('ext');
      await api.users.create({ external_user_id: external, name: 'Ada', email: `${unique('ada')}@example.com` });
      await waitFor(() => out.includes(`registered: ${external} (whd_`), 30_000, 'the example to verify the delivery');
      const { data: list } = await api.get('/api/connect/webhooks/{id}/deliveries', { params: { path: { id: hook.id } } });
      expect(list.deliveries).toEqual([expect.objectContaining({ status: 'delivered', last_status_code: 204 })]);
      const forged = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': 'whd_x',
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': 'v1,AAAA',
          'x-svc-signature': 'sha256=00',
        },
        body: '{"event":"user.registered","webhook_id":"whd_x"}',
      });
      await forged.arrayBuffer();
      expect(forged.status).toBe(400);
      child.kill();
    },
    90_000,
  );
});

function packageJson(dir: string): { version: string; dependencies?: Record<string, string> } {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string; dependencies?: Record<string, string> };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
