import net from 'node:net';
import { startApp, TestApp } from '../../support/app';
import { createAdmin, createCourse, createPartner, unique } from '../../support/factories';

/**
 * Issue 26, finding 12: contributor documents and package metadata were public under /docs, Swagger UI had no
 * script-src, course previews could be framed by any site, and a client trickling headers held its socket 60-80 s.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(() => t.close());

async function get(path: string): Promise<Response> {
  const res = await fetch(`${t.baseUrl}${path}`);
  await res.clone().arrayBuffer();
  return res;
}

describe('/docs serves the partner pages only', () => {
  it.each([
    '/docs/guide/CONVENTIONS',
    '/docs/guide/security',
    '/docs/guide/durability',
    '/docs/package.json',
    '/docs/README.md',
    '/docs/swagger-ui.js.map',
    '/docs/absolute-path.js',
  ])('%s is not found', async (path) => {
    const res = await get(path);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('route_not_found');
  });

  it.each([
    '/docs/guide',
    '/docs/guide/webhooks',
    '/docs/guide/certificates',
    '/docs/guide/bulk-enrollment',
    '/docs/guide/enrollment-and-credits',
    '/docs/guide/decisions',
  ])('%s is served', async (path) => {
    const res = await get(path);
    expect(res.status).toBe(200);
  });

  it("does not link the guide's readers to pages that are not served", async () => {
    const html = await (await get('/docs/guide')).text();
    expect(html).not.toMatch(/href="\/docs\/guide\/(CONVENTIONS|security|durability)"/);
  });

  it.each(['/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui-standalone-preset.js', '/docs/favicon-32x32.png', '/docs/openapi.json'])(
    'Swagger UI still loads %s',
    async (path) => {
      expect((await get(path)).status).toBe(200);
    },
  );
});

describe('/docs sends a full Content-Security-Policy', () => {
  it.each(['/docs', '/docs/', '/docs/guide'])('%s names script-src and the other fetch directives', async (path) => {
    const csp = (await get(path)).headers.get('content-security-policy') ?? '';
    const directives = Object.fromEntries(
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([name, ...values]) => [name, values.join(' ')]),
    );
    expect(directives['default-src']).toBe("'none'");
    expect(directives['script-src']).toMatch(/^('self'|'none')$/);
    expect(directives['object-src'] ?? directives['default-src']).toBe("'none'");
    expect(directives['base-uri']).toBe("'none'");
    expect(directives['form-action']).toBe("'none'");
    expect(directives['frame-ancestors']).toBe("'none'");
  });
});

describe('/preview/courses/:id may be framed only by partners', () => {
  it("lists the partners' allowed origins in frame-ancestors, and nothing else", async () => {
    const admin = await createAdmin(t);
    const { partnerId } = await createPartner(t);
    const origin = `https://${unique('embed').toLowerCase()}.example`;
    expect((await admin.http.patch(`/api/admin/partners/${partnerId}`, { allowed_origins: [origin] })).status).toBe(200);
    const { course } = await createCourse(t.db, {});
    const csp = (await get(`/preview/courses/${course.id}`)).headers.get('content-security-policy') ?? '';
    const ancestors = /frame-ancestors ([^;]+)/.exec(csp)?.[1].split(' ') ?? [];
    expect(ancestors).toContain("'self'");
    expect(ancestors).toContain(origin);
    expect(ancestors).not.toContain('*');
    expect(ancestors.every((a) => a === "'self'" || /^https?:\/\/[^\s*]+$/.test(a))).toBe(true);
  });
});

describe('a client trickling its headers', () => {
  jest.setTimeout(60_000);

  it('loses its connection about 15 s after it started, however busy it keeps the socket', async () => {
    const { port } = new URL(t.baseUrl);
    const socket = net.connect(Number(port), '127.0.0.1');
    socket.on('error', () => undefined);
    socket.on('data', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    const started = Date.now();
    socket.write('GET /api/courses HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const trickle = setInterval(() => socket.writable && socket.write(`X-Slow-${Date.now()}: 1\r\n`), 1000);
    const closedAfter = await new Promise<number>((resolve) => {
      socket.once('close', () => resolve(Date.now() - started));
      setTimeout(() => resolve(Infinity), 40_000);
    });
    clearInterval(trickle);
    socket.destroy();
    expect(closedAfter).toBeGreaterThanOrEqual(14_000);
    expect(closedAfter).toBeLessThan(20_000);
  });
});
