import { Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { PassThrough } from 'node:stream';
import { EVENTS_COMMITTED } from '../../src/events/event-map';
import { startApp, TestApp } from '../support/app';
import { createPartner, CreatedPartner, unique } from '../support/factories';

/** One log line per request, and every line written while a request is served carries its request id. */
let t: TestApp;
let p: CreatedPartner;
let text = '';
beforeAll(async () => {
  const stream = new PassThrough();
  stream.on('data', (chunk) => (text += chunk.toString()));
  t = await startApp({ LOG_LEVEL: 'info', RUN_WORKER: 'false' }, stream);
  p = await createPartner(t, { plan: 'growth' });
  // A listener of committed events (as the webhooks fan-out is) logging after an async hop, through Nest's Logger.
  const logger = new Logger('RequestLoggingTest');
  t.app.get(EventEmitter2).on(EVENTS_COMMITTED, (events: Array<{ type: string; payload: Record<string, unknown> }>) => {
    setImmediate(() => {
      for (const e of events) if (e.type === 'user.registered') logger.log({ external_user_id: e.payload.external_user_id }, 'listener saw a registration');
    });
  });
});
afterAll(() => t.close());

const lines = () =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);

async function linesUntil(ok: (all: Array<Record<string, any>>) => boolean): Promise<Array<Record<string, any>>> {
  for (let i = 0; i < 200 && !ok(lines()); i++) await new Promise((r) => setTimeout(r, 25));
  return lines();
}

describe('request logging', () => {
  it('writes one line per request with its id, method, masked URL, status and time', async () => {
    const requestId = unique('req-log');
    const res = await p.http.get('/api/courses?limit=1', { headers: { 'X-Request-Id': requestId } });
    expect(res.headers.get('X-Request-Id')).toBe(requestId);
    const mine = (await linesUntil((all) => all.some((l) => l.request_id === requestId))).filter((l) => l.request_id === requestId);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ level: 30, msg: 'request completed', req: { method: 'GET', url: '/api/courses?limit=1' }, res: { statusCode: 200 } });
    expect(mine[0].responseTime).toEqual(expect.any(Number));
  });

  it('logs a 4xx at warn level, with the id the error envelope names', async () => {
    const res = await t.http.get('/api/courses');
    const requestId = res.body.error.request_id;
    expect(res.status).toBe(401);
    const [line] = (await linesUntil((all) => all.some((l) => l.request_id === requestId))).filter((l) => l.request_id === requestId);
    expect(line).toMatchObject({ level: 40, res: { statusCode: 401 } });
  });

  it('keeps the request id on lines written by other code during the request, concurrent requests each their own', async () => {
    const calls = Array.from({ length: 5 }, () => ({ requestId: unique('req-ctx'), externalId: unique('learner') }));
    const answers = await Promise.all(
      calls.map((c) =>
        p.http.post(
          '/api/users',
          { external_user_id: c.externalId, name: 'Ada', email: `${c.externalId}@example.com` },
          { headers: { 'X-Request-Id': c.requestId } },
        ),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(calls.map(() => 201));
    const all = await linesUntil((ls) => calls.every((c) => ls.some((l) => l.external_user_id === c.externalId)));
    for (const c of calls) {
      const listenerLine = all.find((l) => l.external_user_id === c.externalId);
      expect(listenerLine).toMatchObject({ msg: 'listener saw a registration', context: 'RequestLoggingTest', request_id: c.requestId });
    }
  });

  it('does not log liveness probes', async () => {
    const marker = unique('req-live');
    await fetch(`${t.baseUrl}/health/live`, { headers: { 'X-Request-Id': marker } });
    const after = unique('req-after');
    await p.http.get('/api/courses?limit=1', { headers: { 'X-Request-Id': after } });
    const all = await linesUntil((ls) => ls.some((l) => l.request_id === after));
    expect(all.filter((l) => l.request_id === marker)).toEqual([]);
  });
});
