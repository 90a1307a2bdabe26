/**
 * Webhook delivery benchmark: a local receiver, 1 subscription, N events.
 *   1. event-to-receipt latency (p50/p99) at a steady 200 events/s (one event per transaction, as the features record them),
 *      from the transaction's start and, beside it, from its COMMIT returning (when the API would answer 201);
 *   2. maximum sustained deliveries per second (events recorded as fast as possible, timed until the last receipt);
 *   3. beside it, a plain loop of undici POSTs of the same size to the same receiver, at the worker's concurrency;
 *   1, 2 and 3 alternate BENCH_ROUNDS times in one run; every round is printed as it ends, and the summary reports the
 *   medians of the rounds (the latency's percentiles are each round's, then their median), with PostgreSQL's WAL per
 *   event and the checkpoints that started during each run.
 * API, worker, receiver and load all run in this one process, against a throw-away database and Redis prefix. For 1 it
 * also prints where the time goes (commit, fan-out start, subscriptions matched where the build matches them in a
 * statement of its own, delivery rows inserted, enqueued, job start, attempt claimed, delivery row loaded, receipt: each
 * from the event's start), the steps the slowest 1 % spent their time in, the event loop's delay and GC pauses, the
 * fan-out's batches, and the process's CPU per event. bench/webhooks-api.js measures the same path from outside, through HTTP.
 *
 * The embedded search engine and the sentence encoder are off (BENCH_SEARCH_ENGINE=true keeps them, and waits for the
 * engine's index before measuring): on the fresh database the engine imports 200,000 word vectors, 10 s or more of this
 * process's main thread, and the encoder loads and warms its model for seconds, both of which a running service does
 * once at start, never while serving.
 *
 * Run:  npx tsc -p bench/webhooks.tsconfig.json && node dist/bench/webhooks.js
 * Env:  DATABASE_URL base (default postgres://postgres@127.0.0.1:5432/postgres), REDIS_URL, BENCH_LATENCY_EVENTS (1000), BENCH_THROUGHPUT_EVENTS (4000), BENCH_ROUNDS (3),
 *       BENCH_PG_PROFILE=true (PostgreSQL's wait events during each latency run, bench/pg-profile.js)
 */
import { createServer } from 'node:http';
import { Session } from 'node:inspector/promises';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { constants as perfConstants, monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { Agent, request } from 'undici';
import { createApp } from '../src/app.factory';
import { loadConfig } from '../src/config/config';
import { runMigrations } from '../src/database/data-source';
import { dropDatabase, ensureDatabase } from '../src/database/ensure-database';
import { TransactionRunner } from '../src/events/transaction-runner';
import { PartnersService } from '../src/partners/partners.service';
import { SearchService } from '../src/search/search.service';
import { WebhookFanOut } from '../src/webhooks/webhook-fan-out.service';
import { WebhookQueue } from '../src/webhooks/webhook-queue';
import { WebhooksService } from '../src/webhooks/webhooks.service';
import { WebhooksRepository } from '../src/webhooks/webhooks.repository';
import { AttemptClaims } from '../src/webhooks/worker/attempt-claims';
import { DeliverWebhookJob } from '../src/webhooks/worker/deliver-webhook.job';
import { DeliveryStore } from '../src/webhooks/worker/delivery-store';

const LATENCY_EVENTS = Number(process.env.BENCH_LATENCY_EVENTS ?? 1000);
const THROUGHPUT_EVENTS = Number(process.env.BENCH_THROUGHPUT_EVENTS ?? 4000);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** A path prefix: a CPU profile of the latency phase and one of the throughput phase are written there (.cpuprofile). */
const CPU_PROFILE = process.env.BENCH_CPU_PROFILE;

/**
 * CPU (ms) used so far by PostgreSQL's backends of `database` and by the Redis server, from /proc (zero when they run
 * elsewhere). Redis is shared with whatever else uses it, so its figure is only as clean as the machine is quiet.
 */
function serverCpuMs(database: string): { postgres: number; redis: number } {
  const used = { postgres: 0, redis: 0 };
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = (Number(fields[11]) + Number(fields[12])) * 10;
      if (name === 'redis-server') used.redis += ms;
      else if (name === 'postgres' && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(database)) used.postgres += ms;
    } catch {
      // the process ended between listing and reading
    }
  }
  return used;
}

/** Profiles `phase` when BENCH_CPU_PROFILE is set: only the measured phase, not the start-up's module loading. */
async function profiled<T>(name: string, phase: () => Promise<T>): Promise<T> {
  if (!CPU_PROFILE) return phase();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await phase();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(`${CPU_PROFILE}-${name}.cpuprofile`, JSON.stringify(profile));
    session.disconnect();
  }
}

const sent = new Map<string, number>();
const received = new Map<string, number>();
/** When each event (by key) and each delivery (by id) passed each stage of the path; the receiver maps one to the other. */
const stages = new Map<string, Record<string, number>>();
const deliveryOf = new Map<string, string>();
/**
 * Stages are read only for the latency runs' events: the sustained and plain runs leave them unmarked, so their CPU per
 * delivery carries none of this bookkeeping (a map entry per delivery and stage, kept to the end of the run).
 */
let marking = false;
function mark(key: string, stage: string): void {
  if (!marking) return;
  let times = stages.get(key);
  if (!times) stages.set(key, (times = {}));
  times[stage] ??= performance.now();
}
let onReceipt: ((key: string) => void) | undefined;

/** bench/pg-profile.js, loaded only with BENCH_PG_PROFILE. */
interface PgProfile {
  sampleWaits(connectionString: string, database: string): { stop(): Promise<unknown> };
  formatWaits(waits: unknown): string;
  statements(
    connectionString: string,
    database: string,
    options: { reset?: boolean; limit?: number },
  ): Promise<Array<{ calls: string; total_ms: string; wal_bytes: string; query: string }> | null>;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function main(): Promise<void> {
  const run = Date.now().toString(36);
  const db = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  // The cluster's own database, for the wait-event sampler: its connection is then not one of the scratch database's.
  const adminUrl = db.toString();
  db.pathname = `/partner_api_bench_${run}`;
  Object.assign(process.env, {
    NODE_ENV: 'test',
    DATABASE_URL: db.toString(),
    REDIS_PREFIX: `pa-bench-${run}`,
    LOG_LEVEL: 'silent',
    RUN_WORKER: 'true',
    LOAD_DEMO_CATALOGUE: 'false',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    SEARCH_EMBEDDED_ENGINE: process.env.BENCH_SEARCH_ENGINE ?? 'false',
    // The sentence encoder's model loads and warms up on worker threads of this process for seconds after start, inside
    // the latency phase: measured here, p99 284 ms with it against 71 ms without. A running service loads it once.
    SEARCH_SENTENCE_ENCODER: process.env.BENCH_SEARCH_ENGINE ?? 'false',
  });
  await ensureDatabase(db.toString());
  await runMigrations(db.toString());

  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { webhook_id: string; data?: { external_user_id?: string } };
      const key = body.data?.external_user_id;
      if (key && !received.has(key)) {
        received.set(key, performance.now());
        deliveryOf.set(key, body.webhook_id);
      }
      res.end('ok');
      if (key) onReceipt?.(key);
    });
  });
  receiver.keepAliveTimeout = 10_000;
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const config = loadConfig();
  const app = await createApp(config, { worker: true });
  await app.init();
  const partner = await app.get(PartnersService).create({ name: 'Bench', email: 'bench@example.com', plan: 'enterprise', mode: 'test' });
  const scope = { partnerId: partner.partner.id, mode: 'test' as const };
  await app.get(WebhooksService).create({ ...partnerAuth(scope) } as never, { url: hookUrl, events: ['user.registered'], secret: 'bench-secret-0123456789' });
  await app.get(SearchService).embedded?.ready;
  const runner = app.get(TransactionRunner);
  // Stage marks around the path's own methods (a timestamp each; the calls themselves are unchanged).
  const fanOut = app.get(WebhookFanOut);
  const deliver = fanOut.deliver.bind(fanOut);
  // The fan-out's batches and their time (each holds one of the fan-out's slots), and its statements marking events dispatched.
  const fanOutCalls = { batches: 0, batch_ms: 0, marks: 0 };
  fanOut.deliver = async (events) => {
    for (const e of events) mark((e.payload as { external_user_id: string }).external_user_id, 'fan-out');
    const started = performance.now();
    await deliver(events);
    fanOutCalls.batches++;
    fanOutCalls.batch_ms += performance.now() - started;
  };
  const markDispatched = fanOut.markDispatched.bind(fanOut);
  fanOut.markDispatched = (ids) => {
    fanOutCalls.marks++;
    return markDispatched(ids);
  };
  // A build whose fan-out matches the subscriptions in a statement of its own: when that statement answered.
  const repository = app.get(WebhooksRepository);
  const repo = repository as unknown as Record<string, (events: Array<{ payload: unknown }>) => Promise<unknown>>;
  if (typeof repo.subscriptionsMatching === 'function') {
    const subscriptionsMatching = repo.subscriptionsMatching.bind(repo);
    repo.subscriptionsMatching = async (events) => {
      const matches = await subscriptionsMatching(events);
      for (const e of events) mark((e.payload as { external_user_id: string }).external_user_id, 'matched');
      return matches;
    };
  }
  const createDeliveries = fanOut.createDeliveries.bind(fanOut);
  fanOut.createDeliveries = async (events) => {
    const ids = await createDeliveries(events);
    for (const id of ids) mark(id, 'inserted');
    return ids;
  };
  const queue = app.get(WebhookQueue);
  // The fan-out's enqueue (first attempts, several deliveries to a job) where the build has it, else one job per delivery.
  const q = queue as unknown as Record<string, (ids: string[], suffix?: string) => Promise<void>>;
  const enqueueMethod = typeof q.enqueueFirstAttempts === 'function' ? 'enqueueFirstAttempts' : 'enqueue';
  const enqueue = q[enqueueMethod].bind(queue);
  q[enqueueMethod] = async (ids, suffix) => {
    await enqueue(ids, suffix);
    for (const id of ids) mark(id, 'enqueued');
  };
  // The worker's steps before the request: the attempt's claim in Redis, then the delivery's row.
  const claims = app.get(AttemptClaims);
  const claim = claims.claim.bind(claims);
  claims.claim = async (id) => {
    const ok = await claim(id);
    mark(id, 'claimed');
    return ok;
  };
  const store = app.get(DeliveryStore);
  const load = store.load.bind(store);
  store.load = async (id) => {
    const row = await load(id);
    mark(id, 'loaded');
    return row;
  };
  const job = app.get(DeliverWebhookJob);
  const processJob = job.process.bind(job);
  job.process = (j, token) => {
    const data = j.data as { deliveryId?: string; deliveryIds?: string[] };
    for (const id of data.deliveryIds ?? [data.deliveryId!]) mark(id, 'job');
    return processJob(j, token);
  };

  let recordRetries = 0;
  const recordOnce = (keys: string[]) =>
    runner.run(async (tx) => {
      for (const key of keys) {
        if (!sent.has(key)) sent.set(key, performance.now()); // a retried event's latency counts from its first try
        await tx.record(scope, 'user.registered', {
          user_id: 1,
          external_user_id: key,
          name: 'Bench User',
          email: 'bench@example.com',
          registered_at: new Date().toISOString(),
        });
      }
    });
  // On a loaded machine a transaction can wait past the pool's connect timeout (1.5 s): try again rather than lose the
  // event and crash the run (the latency phase's promises are awaited only at its end). Retries are reported.
  const record = async (keys: string[]): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      try {
        await recordOnce(keys);
        for (const key of keys) mark(key, 'commit');
        return;
      } catch (err) {
        if (attempt >= 5) throw err;
        recordRetries++;
      }
    }
  };
  // Resolves when every key has been received; O(1) per receipt, so the harness costs the measured path nothing.
  const waitAll = (keys: string[], timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
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

  // Warm-up: connections, prepared paths, JIT.
  const warm = Array.from({ length: 200 }, (_, i) => `warm-${i}`);
  await Promise.all(Array.from({ length: 20 }, (_, i) => record(warm.slice(i * 10, i * 10 + 10))));
  await waitAll(warm, 30_000);

  // PostgreSQL's WAL and checkpoints around each measured run (cluster-wide views: on a shared cluster they count the
  // other databases' writes too, which is why the load average is printed beside them).
  const dataSource = app.get(DataSource);
  const walNow = async () => {
    const [w] = await dataSource.query<Array<Record<'records' | 'fpi' | 'bytes' | 'syncs' | 'checkpoints', string>>>(
      `SELECT w.wal_records::bigint AS records, w.wal_fpi::bigint AS fpi, w.wal_bytes::bigint AS bytes, w.wal_sync::bigint AS syncs,
              b.checkpoints_timed + b.checkpoints_req AS checkpoints
         FROM pg_stat_wal w, pg_stat_bgwriter b`,
    );
    return { records: Number(w.records), fpi: Number(w.fpi), bytes: Number(w.bytes), syncs: Number(w.syncs), checkpoints: Number(w.checkpoints) };
  };
  const walSince = (before: Awaited<ReturnType<typeof walNow>>, after: Awaited<ReturnType<typeof walNow>>, per: number) => ({
    records_per_event: +((after.records - before.records) / per).toFixed(1),
    full_page_images_per_event: +((after.fpi - before.fpi) / per).toFixed(2),
    bytes_per_event: Math.round((after.bytes - before.bytes) / per),
    wal_syncs: after.syncs - before.syncs,
    checkpoints_started: after.checkpoints - before.checkpoints,
  });
  // BENCH_PG_PROFILE=true: what the scratch database's backends wait on during each latency run (bench/pg-profile.js).
  // A CommonJS script beside this one (bench/enroll.js uses it too), not a module of the TypeScript build.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pgProfile = process.env.BENCH_PG_PROFILE === 'true' ? (require('../../bench/pg-profile.js') as PgProfile) : undefined;

  // 1. Latency at RATE events/s: one run of LATENCY_EVENTS, with where the time goes.
  const latencyRun = async (round: number) => {
    const latencyKeys = Array.from({ length: LATENCY_EVENTS }, (_, i) => `lat-${round}-${i}`);
    // What stalls the whole process (GC pauses, long synchronous work) shows in the event loop's delay; the rest of a
    // stage's time is waiting on PostgreSQL or Redis.
    const loopDelay = monitorEventLoopDelay({ resolution: 1 });
    const gcPauses: Array<{ kind: string; ms: number }> = [];
    const GC_KINDS: Record<number, string> = {
      [perfConstants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
      [perfConstants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
      [perfConstants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
      [perfConstants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak_callbacks',
    };
    const gcObserver = new PerformanceObserver((list) =>
      list
        .getEntries()
        .forEach((e) => gcPauses.push({ kind: GC_KINDS[(e as unknown as { detail: { kind: number } }).detail.kind] ?? 'other', ms: e.duration })),
    );
    gcObserver.observe({ entryTypes: ['gc'] });
    loopDelay.enable();
    Object.assign(fanOutCalls, { batches: 0, batch_ms: 0, marks: 0 });
    const walBefore = await walNow();
    const waits = pgProfile?.sampleWaits(adminUrl, db.pathname.slice(1));
    const cpuBefore = process.cpuUsage();
    const serversBefore = serverCpuMs(db.pathname.slice(1));
    const start = performance.now();
    marking = true;
    await profiled(`latency-${round}`, async () => {
      const inflight: Promise<void>[] = [];
      for (let i = 0; i < latencyKeys.length; i++) {
        const due = start + (i * 1000) / RATE;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        inflight.push(record([latencyKeys[i]]));
      }
      await Promise.all(inflight);
      await waitAll(latencyKeys, 60_000);
    });
    marking = false;
    const cpu = process.cpuUsage(cpuBefore);
    const serversAfter = serverCpuMs(db.pathname.slice(1));
    const waitEvents = await waits?.stop();
    const wal = walSince(walBefore, await walNow(), LATENCY_EVENTS);
    const latencyFanOut = { ...fanOutCalls };
    loopDelay.disable();
    gcObserver.disconnect();
    const STAGES = ['commit', 'fan-out', 'matched', 'inserted', 'enqueued', 'job', 'claimed', 'loaded', 'receipt'];
    const stageAt = (k: string, stage: string) =>
      (stage === 'receipt' ? received.get(k) : (stages.get(k)?.[stage] ?? stages.get(deliveryOf.get(k)!)?.[stage])) ?? NaN;
    const stageMs: Record<string, Record<string, number>> = {};
    for (const stage of STAGES) {
      const xs = latencyKeys
        .map((k) => stageAt(k, stage) - sent.get(k)!)
        .filter((x) => !Number.isNaN(x))
        .sort((a, b) => a - b);
      if (xs.length) stageMs[stage] = { p50: +percentile(xs, 50).toFixed(1), p99: +percentile(xs, 99).toFixed(1) };
    }
    // Where the slowest 1 % of events spent their time: the mean of each step (previous stage to this one) over them.
    const slowest = [...latencyKeys]
      .sort((a, b) => received.get(b)! - sent.get(b)! - (received.get(a)! - sent.get(a)!))
      .slice(0, Math.max(1, LATENCY_EVENTS / 100));
    const slowestSteps: Record<string, number> = {};
    // Steps between the stages the build passes (one without a separate match has no `matched`).
    const passed = STAGES.filter((stage) => stageMs[stage]);
    passed.forEach((stage, i) => {
      const steps = slowest.map((k) => stageAt(k, stage) - (i ? stageAt(k, passed[i - 1]) : sent.get(k)!)).filter((x) => !Number.isNaN(x));
      slowestSteps[stage] = +(steps.reduce((a, b) => a + b, 0) / (steps.length || 1)).toFixed(1);
    });
    const latencies = latencyKeys.map((k) => received.get(k)! - sent.get(k)!).sort((a, b) => a - b);
    // From the event's COMMIT returning: what a partner sees after the API's 201, which is sent once the commit returns.
    const fromCommit = latencyKeys.map((k) => received.get(k)! - stageAt(k, 'commit')).sort((a, b) => a - b);
    const spread = (xs: number[]) => ({
      p50: +percentile(xs, 50).toFixed(1),
      p90: +percentile(xs, 90).toFixed(1),
      p99: +percentile(xs, 99).toFixed(1),
      max: +xs[xs.length - 1].toFixed(1),
    });
    return {
      latency_ms: spread(latencies),
      latency_from_commit_ms: spread(fromCommit),
      stages_ms_from_start: stageMs,
      slowest_1pct_steps_ms: slowestSteps,
      event_loop_delay_ms: {
        p50: +(loopDelay.percentile(50) / 1e6).toFixed(1),
        p99: +(loopDelay.percentile(99) / 1e6).toFixed(1),
        max: +(loopDelay.max / 1e6).toFixed(1),
      },
      gc_pauses: Object.fromEntries(
        [...new Set(gcPauses.map((g) => g.kind))].map((kind) => {
          const ms = gcPauses.filter((g) => g.kind === kind).map((g) => g.ms);
          return [kind, { count: ms.length, total_ms: +ms.reduce((a, b) => a + b, 0).toFixed(1), max_ms: +Math.max(...ms).toFixed(1) }];
        }),
      ),
      fan_out: {
        batches: latencyFanOut.batches,
        mean_batch_ms: +(latencyFanOut.batch_ms / (latencyFanOut.batches || 1)).toFixed(1),
        mark_statements: latencyFanOut.marks,
      },
      cpu_ms_per_event: +((cpu.user + cpu.system) / 1000 / LATENCY_EVENTS).toFixed(2),
      server_cpu_ms_per_event: {
        postgres_backends: +((serversAfter.postgres - serversBefore.postgres) / LATENCY_EVENTS).toFixed(2),
        redis: +((serversAfter.redis - serversBefore.redis) / LATENCY_EVENTS).toFixed(2),
      },
      wal,
      ...(waitEvents ? { pg_wait_events: pgProfile!.formatWaits(waitEvents).split('\n') } : {}),
      load_average: loadavg().map((l) => +l.toFixed(2)),
    };
  };

  // 2. Maximum sustained deliveries per second, and 3. a plain undici POST loop to the same receiver, same body size,
  // same concurrency as the worker.
  const agent = new Agent({ connections: 128 });
  const sample = JSON.stringify({
    event: 'user.registered',
    timestamp: new Date().toISOString(),
    webhook_id: 'whd_0000000000000000000000',
    data: { user_id: 1, external_user_id: 'plain-000000', name: 'Bench User', email: 'bench@example.com', registered_at: new Date().toISOString() },
  });
  const sustainedRun = async (round: number) => {
    const tpKeys = Array.from({ length: THROUGHPUT_EVENTS }, (_, i) => `tp-${round}-${i}`);
    await pgProfile?.statements(adminUrl, db.pathname.slice(1), { reset: true });
    const walBefore = await walNow();
    const tpStart = performance.now();
    const tpCpuBefore = { process: process.cpuUsage(), servers: serverCpuMs(db.pathname.slice(1)) };
    Object.assign(fanOutCalls, { batches: 0, batch_ms: 0, marks: 0 });
    await profiled(`throughput-${round}`, async () => {
      const batches: Promise<void>[] = [];
      for (let i = 0; i < tpKeys.length; i += 20) {
        batches.push(record(tpKeys.slice(i, i + 20)));
        if (batches.length % 10 === 0) await Promise.all(batches.slice(-10));
      }
      await Promise.all(batches);
      await waitAll(tpKeys, 180_000);
    });
    const rate = THROUGHPUT_EVENTS / ((performance.now() - tpStart) / 1000);
    const tpProcess = process.cpuUsage(tpCpuBefore.process);
    const tpServers = serverCpuMs(db.pathname.slice(1));
    const wal = walSince(walBefore, await walNow(), THROUGHPUT_EVENTS);
    // With BENCH_PG_PROFILE on a cluster that preloads pg_stat_statements: each statement's share of a delivery.
    const statements = await pgProfile?.statements(adminUrl, db.pathname.slice(1), { limit: 12 });
    return {
      rate,
      ...(statements
        ? {
            pg_statements_per_delivery: statements.map((r) => ({
              calls: +(Number(r.calls) / THROUGHPUT_EVENTS).toFixed(3),
              ms: +(Number(r.total_ms) / THROUGHPUT_EVENTS).toFixed(4),
              wal_bytes: Math.round(Number(r.wal_bytes) / THROUGHPUT_EVENTS),
              query: r.query,
            })),
          }
        : {}),
      batches: fanOutCalls.batches,
      cpu: {
        process: (tpProcess.user + tpProcess.system) / 1000 / THROUGHPUT_EVENTS,
        postgres: (tpServers.postgres - tpCpuBefore.servers.postgres) / THROUGHPUT_EVENTS,
        redis: (tpServers.redis - tpCpuBefore.servers.redis) / THROUGHPUT_EVENTS,
      },
      wal,
    };
  };
  const plainRun = async () => {
    let next = 0;
    const plainStart = performance.now();
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < THROUGHPUT_EVENTS) {
          next++;
          const res = await request(hookUrl, { method: 'POST', body: sample, headers: { 'content-type': 'application/json' }, dispatcher: agent });
          await res.body.text();
        }
      }),
    );
    return THROUGHPUT_EVENTS / ((performance.now() - plainStart) / 1000);
  };

  // The three runs alternate ROUNDS times in this one run (the machine's noise, a checkpoint, an autovacuum move them
  // alike), every round is printed to stderr as it ends, and the summary gives the medians of the rounds.
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const latencyRounds: Array<Awaited<ReturnType<typeof latencyRun>>> = [];
  const sustainedRounds: Array<Awaited<ReturnType<typeof sustainedRun>>> = [];
  const plainRates: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const lat = await latencyRun(round);
    latencyRounds.push(lat);
    const tp = await sustainedRun(round);
    sustainedRounds.push(tp);
    const plain = await plainRun();
    plainRates.push(plain);
    process.stderr.write(
      `round ${round + 1}/${ROUNDS}: ${RATE} events/s p50 ${lat.latency_ms.p50} p90 ${lat.latency_ms.p90} p99 ${lat.latency_ms.p99} max ${lat.latency_ms.max} ms` +
        ` (commit p99 ${lat.stages_ms_from_start.commit?.p99} ms; from the commit p50 ${lat.latency_from_commit_ms.p50} p99 ${lat.latency_from_commit_ms.p99} ms; WAL ${lat.wal.bytes_per_event} B/event, ${lat.wal.full_page_images_per_event} FPI/event, ${lat.wal.checkpoints_started} checkpoint(s) started);` +
        ` sustained ${Math.round(tp.rate)} deliveries/s (CPU/delivery ${tp.cpu.process.toFixed(3)} + ${tp.cpu.postgres.toFixed(3)} PG + ${tp.cpu.redis.toFixed(3)} Redis ms;` +
        ` WAL ${tp.wal.bytes_per_event} B, ${tp.wal.full_page_images_per_event} FPI per delivery); plain undici ${Math.round(plain)}/s; load ${loadavg()[0].toFixed(1)}\n`,
    );
  }
  const deliveryRates = sustainedRounds.map((r) => r.rate);
  const tpCpu = sustainedRounds.map((r) => r.cpu);
  const latencyMedian = (pick: (r: (typeof latencyRounds)[number]) => number) => +median(latencyRounds.map(pick)).toFixed(1);

  const [{ failed }] = await dataSource.query<Array<{ failed: number }>>(
    `SELECT count(*) FILTER (WHERE status <> 'delivered')::int AS failed FROM webhook_deliveries`,
  );
  const out = {
    latency_events: LATENCY_EVENTS,
    rate_events_per_s: RATE,
    rounds: ROUNDS,
    // Medians over the rounds of each round's percentile; every round follows.
    latency_ms: {
      p50: latencyMedian((r) => r.latency_ms.p50),
      p90: latencyMedian((r) => r.latency_ms.p90),
      p99: latencyMedian((r) => r.latency_ms.p99),
      max: latencyMedian((r) => r.latency_ms.max),
    },
    latency_from_commit_ms: {
      p50: latencyMedian((r) => r.latency_from_commit_ms.p50),
      p90: latencyMedian((r) => r.latency_from_commit_ms.p90),
      p99: latencyMedian((r) => r.latency_from_commit_ms.p99),
      max: latencyMedian((r) => r.latency_from_commit_ms.max),
    },
    latency_p99_ms_by_round: latencyRounds.map((r) => r.latency_ms.p99),
    latency_from_commit_p99_ms_by_round: latencyRounds.map((r) => r.latency_from_commit_ms.p99),
    latency_commit_p99_ms_by_round: latencyRounds.map((r) => r.stages_ms_from_start.commit?.p99),
    latency_rounds: latencyRounds,
    throughput_events: THROUGHPUT_EVENTS,
    webhook_deliveries_per_s: Math.round(median(deliveryRates)),
    plain_undici_posts_per_s: Math.round(median(plainRates)),
    ratio_percent: +((median(deliveryRates) / median(plainRates)) * 100).toFixed(1),
    // CPU per delivery in the sustained runs (medians): this process (recording the events too, and the receiver),
    // PostgreSQL's backends of the bench's database, and the Redis server. Lower is more deliveries/s on the same cores.
    throughput_fan_out_batches: median(sustainedRounds.map((r) => r.batches)),
    throughput_cpu_ms_per_delivery: {
      process: +median(tpCpu.map((c) => c.process)).toFixed(3),
      postgres_backends: +median(tpCpu.map((c) => c.postgres)).toFixed(3),
      redis: +median(tpCpu.map((c) => c.redis)).toFixed(3),
    },
    throughput_wal_per_delivery: {
      bytes: median(sustainedRounds.map((r) => r.wal.bytes_per_event)),
      records: median(sustainedRounds.map((r) => r.wal.records_per_event)),
      full_page_images: median(sustainedRounds.map((r) => r.wal.full_page_images_per_event)),
    },
    runs: {
      webhook_deliveries_per_s: deliveryRates.map(Math.round),
      plain_undici_posts_per_s: plainRates.map(Math.round),
      cpu_ms_per_delivery: tpCpu.map((c) => ({ process: +c.process.toFixed(3), postgres_backends: +c.postgres.toFixed(3), redis: +c.redis.toFixed(3) })),
      wal_per_delivery: sustainedRounds.map((r) => r.wal),
    },
    ...(sustainedRounds[sustainedRounds.length - 1].pg_statements_per_delivery
      ? { throughput_pg_statements_per_delivery_last_round: sustainedRounds[sustainedRounds.length - 1].pg_statements_per_delivery }
      : {}),
    not_delivered: failed,
    record_retries: recordRetries,
    load_average: loadavg().map((l) => +l.toFixed(2)),
    // Below the latency phase's rate the latency figures measure a growing backlog (the machine's capacity), not the path.
    ...(median(deliveryRates) < RATE * 2
      ? { warning: `sustained deliveries/s below twice the latency phase's ${RATE}/s: the latency is a backlog, not the path's` }
      : {}),
  };
  process.stdout.write(JSON.stringify(out, null, 2) + '\n');

  await agent.close();
  await app.close();
  receiver.closeAllConnections();
  receiver.close();
  await dropDatabase(db.toString());
}

/** The subset of an AuthContext that WebhooksService.create reads. */
function partnerAuth(scope: { partnerId: number; mode: 'test' }) {
  return { partnerId: scope.partnerId, mode: scope.mode, scope, plan: { code: 'enterprise', webhookEventTypes: null } };
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
