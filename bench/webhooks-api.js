'use strict';
/**
 * Webhook latency through the API, as a partner feels it (the outside view of bench/webhooks.ts). Run `npm run build`
 * first; `npm run bench:webhooks` runs this after the in-process figures, `node bench/webhooks-api.js` runs it alone.
 *
 * Starts the built API (dist/src/main.js, RUN_WORKER=false, LOG_LEVEL=info as in production, logs to /dev/null) and a
 * separate worker (dist/src/worker.js), as the compose file deploys them, on a scratch database; subscribes a receiver
 * in this process to `credits.purchased`; then sends top-ups at a steady BENCH_API_RATE (100) per second, each for a
 * learner of its own with a unique reference, and matches each 201 to its delivery by transaction id. Latency counts
 * from the moment the 201 arrived to the receipt. Beside it, a plain POST of the same body from this process to the same
 * receiver at the same rate is the floor. Also prints each process's CPU per top-up (API, worker, PostgreSQL's
 * backends, this process).
 *
 * Environment: as bench/lib.js (BENCH_DATABASE_URL, BENCH_REDIS_URL, BENCH_LOG_LEVEL), BENCH_API_EVENTS (1000),
 * BENCH_API_RATE (100).
 */
const { createServer } = require('node:http');
const { performance } = require('node:perf_hooks');
const { Agent, request } = require('undici');
const { cli, cpuMs, freePort, MAIN, postgresCpu, postgresCpuSince, runBench, serviceEnv, sql, start, waitFor } = require('./lib');
const { join, dirname } = require('node:path');

const EVENTS = Number(process.env.BENCH_API_EVENTS ?? 1000);
const RATE = Number(process.env.BENCH_API_RATE ?? 100);
const WARMUP = 200;
const WORKER = join(dirname(MAIN), 'worker.js');

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const summary = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: +percentile(s, 50).toFixed(1), p90: +percentile(s, 90).toFixed(1), p99: +percentile(s, 99).toFixed(1), max: +s[s.length - 1].toFixed(1) };
};

async function main() {
  const received = new Map();
  let onReceipt;
  const receiver = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const body = JSON.parse(Buffer.concat(chunks).toString());
      const key = body.data?.transaction_id ?? body.data?.plain;
      if (key && !received.has(key)) received.set(key, at);
      res.end('ok');
      if (key) onReceipt?.(key);
    });
  });
  receiver.keepAliveTimeout = 10_000;
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  const hookUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

  const port = await freePort();
  const api = start('API', MAIN, serviceEnv(port, { RUN_WORKER: 'false' }));
  await waitFor(`http://127.0.0.1:${port}/health/ready`, api);
  const worker = start('worker', WORKER, serviceEnv(await freePort(), { AUTO_MIGRATE: 'false' }));
  const partner = await cli(['partner', 'create', '--name', 'Bench', '--email', 'bench@example.com', '--plan', 'enterprise'], serviceEnv(port));
  await sql(`UPDATE plans SET rate_limit_per_second = 1000000 WHERE code = 'enterprise'`);
  const base = `http://127.0.0.1:${port}/api`;
  const agent = new Agent({ connections: 64 });
  const call = async (method, path, body) => {
    const res = await request(`${base}${path}`, {
      method,
      body: body && JSON.stringify(body),
      headers: { 'content-type': 'application/json', 'x-api-key': partner.api_key },
      dispatcher: agent,
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 300)}`);
    return JSON.parse(text).data;
  };
  await call('POST', '/connect/webhooks', { url: hookUrl, events: ['credits.purchased'], secret: 'bench-secret-0123456789' });
  await sql(
    `INSERT INTO users (partner_id, mode, external_user_id, name, email)
     SELECT $1, 'test', 'bench-' || g, 'Learner ' || g, 'learner' || g || '@example.com' FROM generate_series(1, $2) g`,
    [partner.partner_id ?? partner.id, WARMUP + EVENTS],
  );
  const users = await sql(`SELECT id FROM users ORDER BY id`);
  // The worker is ready once it has delivered something: the warm-up's deliveries.
  const waitAll = (keys, timeoutMs) =>
    new Promise((resolve, reject) => {
      const waiting = new Set(keys.filter((k) => !received.has(k)));
      const timer = setTimeout(() => reject(new Error(`only ${keys.length - waiting.size}/${keys.length} received`)), timeoutMs);
      const done = () => {
        clearTimeout(timer);
        onReceipt = undefined;
        resolve();
      };
      if (!waiting.size) return done();
      onReceipt = (key) => {
        if (waiting.delete(key) && !waiting.size) done();
      };
    });

  // A 503 (the API's pool or Redis short of time on a loaded machine) is sent again with the same reference, which
  // answers the original transaction without crediting twice; such retries are counted and reported.
  let retries = 0;
  const topUp = async (i) => {
    const sent = performance.now();
    for (let attempt = 1; ; attempt++) {
      try {
        const r = await call('POST', '/credits/topup', { user_id: users[i].id, amount: 10, source: 'bench', reference: `bench-${i}` });
        return { key: r.transaction_id, sent, answered: performance.now() };
      } catch (e) {
        if (attempt >= 3 || !/: 503 /.test(e.message)) throw e;
        retries++;
      }
    }
  };
  /** `count` calls of `fn(i)` at a steady `rate` per second, all awaited. */
  const paced = async (from, count, rate, fn) => {
    const t0 = performance.now();
    const inflight = [];
    for (let i = 0; i < count; i++) {
      const wait = t0 + (i * 1000) / rate - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      inflight.push(fn(from + i));
    }
    return Promise.all(inflight);
  };

  const warm = await paced(0, WARMUP, RATE, topUp);
  await waitFor(`http://127.0.0.1:${port}/health/ready`, api);
  await waitAll(
    warm.map((w) => w.key),
    120_000,
  );

  const cpu = { api: cpuMs(api.pid), worker: cpuMs(worker.pid), bench: process.cpuUsage(), pg: postgresCpu() };
  const runs = await paced(WARMUP, EVENTS, RATE, topUp);
  await waitAll(
    runs.map((r) => r.key),
    120_000,
  );
  const pg = postgresCpuSince(cpu.pg);
  const benchCpu = process.cpuUsage(cpu.bench);
  const perEvent = (ms) => +(ms / EVENTS).toFixed(3);
  const cpuPerTopUp = {
    api: perEvent(cpuMs(api.pid) - cpu.api),
    worker: perEvent(cpuMs(worker.pid) - cpu.worker),
    postgres_backends: perEvent(pg.backends),
    bench: perEvent((benchCpu.user + benchCpu.system) / 1000),
  };

  // The floor: the same receiver, the same body size, the same rate, straight from this process.
  const sample = JSON.stringify({ event: 'credits.purchased', timestamp: new Date().toISOString(), webhook_id: 'whd_0', data: { plain: 'x' } });
  const plainAgent = new Agent({ connections: 64 });
  const plain = await paced(0, EVENTS, RATE, async (i) => {
    const t = performance.now();
    const res = await request(hookUrl, {
      method: 'POST',
      body: sample.replace('"x"', `"plain-${i}"`),
      dispatcher: plainAgent,
      headers: { 'content-type': 'application/json' },
    });
    await res.body.text();
    return performance.now() - t;
  });

  // Where the time went, from PostgreSQL's clock (the same machine): the top-up's transaction start → its delivery row
  // (the fan-out's INSERT) → the first attempt's request (the worker, just before the POST).
  const stages = await sql(
    `SELECT extract(epoch FROM d.created_at - e.created_at) * 1000 AS fan_out, extract(epoch FROM a.attempted_at - d.created_at) * 1000 AS attempt
       FROM events e JOIN webhook_deliveries d ON d.event_id = e.id
       JOIN LATERAL (SELECT min(attempted_at) AS attempted_at FROM webhook_attempts WHERE delivery_id = d.id) a ON true
      WHERE e.payload->>'transaction_id' = ANY($1::text[])`,
    [runs.map((r) => r.key)],
  );
  const out = {
    api_events: EVENTS,
    rate_per_s: RATE,
    topup_201_to_receipt_ms: summary(runs.map((r) => received.get(r.key) - r.answered)),
    topup_http_ms: summary(runs.map((r) => r.answered - r.sent)),
    transaction_start_to_delivery_row_ms: summary(stages.map((r) => Number(r.fan_out))),
    delivery_row_to_attempt_ms: summary(stages.map((r) => Number(r.attempt))),
    plain_post_ms: summary(plain),
    cpu_ms_per_topup: cpuPerTopUp,
    retried_503: retries,
    load_average: require('node:os')
      .loadavg()
      .map((l) => +l.toFixed(2)),
  };
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  await agent.close();
  await plainAgent.close();
  receiver.closeAllConnections();
  receiver.close();
}

runBench(main);
