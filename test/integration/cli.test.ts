import { join } from 'node:path';
import { runCli } from '../../src/cli/run-cli';
import { startApp, TestApp } from '../support/app';
import { unique } from '../support/factories';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(() => t.close());

/** Runs the CLI in process and returns the one JSON object it printed. */
async function cli(...argv: string[]): Promise<{ code: number; out: any }> {
  const writes: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: any) => {
    writes.push(String(chunk));
    return true;
  });
  const errSpy = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    const code = await runCli(argv);
    const text = writes.join('').trim();
    return { code, out: text ? JSON.parse(text) : undefined };
  } finally {
    spy.mockRestore();
    errSpy.mockRestore();
  }
}

describe('operator CLI (contract section 4)', () => {
  it('creates a partner with a key of the requested plan and mode', async () => {
    const { code, out } = await cli(
      'partner',
      'create',
      '--name',
      unique('CLI Partner'),
      '--email',
      `${unique('cli')}@example.com`,
      '--plan',
      'growth',
      '--mode',
      'live',
    );
    expect(code).toBe(0);
    expect(out).toEqual({
      partner_id: expect.any(Number),
      key_id: expect.stringMatching(/^key_/),
      api_key: expect.stringMatching(/^eck_live_/),
      mode: 'live',
      plan: 'growth',
    });
    expect(out.key_id).toBe(await keyIdOf(out.api_key));
    const me = await t.http.get('/api/partners/me', { key: out.api_key });
    expect(me.body.data).toMatchObject({ id: out.partner_id, plan: 'growth', mode: 'live' });
  });

  it('creates an admin key that can call admin routes', async () => {
    const { code, out } = await cli('admin-key', 'create', '--name', 'ops');
    expect(code).toBe(0);
    expect(out).toEqual({ id: expect.stringMatching(/^key_/), api_key: expect.stringMatching(/^eck_(live|test)_/) });
    expect((await t.http.get('/api/admin/production-access', { key: out.api_key })).status).toBe(200);
  });

  it('revokes a key named by the key_id that partner create printed, or by the key itself', async () => {
    const byId = await cli('partner', 'create', '--name', unique('P'), '--email', `${unique('p')}@example.com`, '--plan', 'starter');
    const revokedById = await cli('key', 'revoke', byId.out.key_id);
    expect(revokedById).toEqual({ code: 0, out: { id: byId.out.key_id, revoked_at: expect.any(String) } });
    expect((await t.http.get('/api/courses', { key: byId.out.api_key })).body.error.code).toBe('revoked_api_key');

    const byKey = await cli('partner', 'create', '--name', unique('P'), '--email', `${unique('p')}@example.com`, '--plan', 'starter');
    const revokedByKey = await cli('key', 'revoke', byKey.out.api_key);
    expect(revokedByKey).toEqual({ code: 0, out: { id: byKey.out.key_id, revoked_at: expect.any(String) } });
    expect((await t.http.get('/api/courses', { key: byKey.out.api_key })).body.error.code).toBe('revoked_api_key');
    // An unknown but well-formed key, and garbage shaped like a key, are api_key_not_found (exit code 1).
    const unknown = await cli('key', 'revoke', byKey.out.api_key.slice(0, 10) + 'x'.repeat(37));
    expect(unknown.code).toBe(1);
  });

  it('revokes a key', async () => {
    const created = await cli('partner', 'create', '--name', unique('P'), '--email', `${unique('p')}@example.com`, '--plan', 'starter');
    const keyId = (await t.http.get('/api/partners/me', { key: created.out.api_key })).status === 200 ? await keyIdOf(created.out.api_key) : '';
    const { code, out } = await cli('key', 'revoke', keyId);
    expect(code).toBe(0);
    expect(out).toEqual({ id: keyId, revoked_at: expect.any(String) });
    expect((await t.http.get('/api/courses', { key: created.out.api_key })).body.error.code).toBe('revoked_api_key');
  });

  it('loads a catalogue file idempotently', async () => {
    const file = join(__dirname, '..', '..', 'data', 'edx_courses.csv');
    const first = await cli('catalogue', 'load', '--file', file);
    expect(first.code).toBe(0);
    expect(first.out.courses).toBeGreaterThan(900);
    const again = await cli('catalogue', 'load', '--file', file);
    expect(again.out).toMatchObject({ courses: first.out.courses, created: 0 });
    // The loader defers the search triggers and builds every document once at the end: none missing or stale.
    const [search] = await t.db.query(
      `SELECT count(*) FILTER (WHERE h.course_id IS NULL OR d.course_id IS NULL)::int AS missing,
              count(*) FILTER (WHERE h.published IS DISTINCT FROM c.published OR h.category_key IS DISTINCT FROM lower(c.category)
                                 OR h.head IS DISTINCT FROM ts_filter(d.document, '{a,b}')
                                 OR NOT tsvector_to_array(to_tsvector('english', c.title)) <@ tsvector_to_array(h.head))::int AS stale
         FROM courses c LEFT JOIN search_heads h ON h.course_id = c.id LEFT JOIN search_documents d ON d.course_id = c.id
        WHERE c.source_key LIKE 'edx:%'`,
    );
    expect(search).toEqual({ missing: 0, stale: 0 });
  });

  it('refuses bad usage with exit code 2', async () => {
    expect((await cli('partner', 'create', '--name', 'x')).code).toBe(2);
    expect((await cli('partner', 'create', '--name', 'x', '--email', 'e@x.com', '--plan', 'gold')).code).toBe(2);
    expect((await cli('nonsense')).code).toBe(2);
  });
});

async function keyIdOf(key: string): Promise<string> {
  const [row] = await t.db.query('SELECT id FROM api_keys WHERE key_prefix = $1 ORDER BY created_at DESC LIMIT 1', [key.slice(0, 14)]);
  return row.id;
}
