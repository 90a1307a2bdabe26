'use strict';
/**
 * The physical floor under `bench:webhooks`' latency: what a durable commit costs on this machine's PostgreSQL with
 * no service in the way. A plain `pg` pool commits event-shaped transactions (an insert into an events-like table and
 * its undispatched-keys table, about 300 bytes of payload, synchronous commit) at a steady RATE for DURATION seconds,
 * ROUNDS times; each round prints the commit's p50 / p99 / max and the WAL flushes and their time from `pg_stat_wal`
 * (the cluster's, so read it on a quiet machine). If this p99 is above a latency target, no delivery path that starts
 * with a durable event can meet it here.
 * `npm run bench:pg-commit`; RATE (200), DURATION (5 s), ROUNDS (5), BENCH_DATABASE_URL as for the other benchmarks.
 */
const lib = require('./lib');
const { randomBytes } = require('node:crypto');

const RATE = Number(process.env.RATE ?? 200);
const DURATION = Number(process.env.DURATION ?? 5);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function walSyncs(pool) {
  // pg_stat_wal's sync columns need track_wal_io_timing for the time; the count is always there.
  const { rows } = await pool.query('SELECT wal_sync::bigint AS n, wal_sync_time::float AS ms FROM pg_stat_wal');
  return { n: Number(rows[0].n), ms: Number(rows[0].ms) };
}

async function round(pool) {
  const latencies = [];
  const pending = [];
  const before = await walSyncs(pool);
  const total = RATE * DURATION;
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    const wait = t0 + (i * 1000) / RATE - performance.now();
    if (wait > 0) await sleep(wait);
    pending.push(
      (async () => {
        const client = await pool.connect();
        const start = performance.now();
        try {
          const id = `evt_${randomBytes(16).toString('base64url').slice(0, 22)}`;
          await client.query('BEGIN');
          await client.query('INSERT INTO events (id, payload) VALUES ($1, $2)', [id, JSON.stringify({ pad: 'x'.repeat(280) })]);
          await client.query('INSERT INTO events_undispatched (event_id) VALUES ($1)', [id]);
          await client.query('COMMIT');
          latencies.push(performance.now() - start);
        } finally {
          client.release();
        }
      })(),
    );
  }
  await Promise.all(pending);
  const after = await walSyncs(pool);
  const sorted = latencies.sort((a, b) => a - b);
  return {
    p50: pct(sorted, 0.5),
    p99: pct(sorted, 0.99),
    max: sorted[sorted.length - 1],
    walSyncsPerCommit: (after.n - before.n) / total,
    walSyncMs: after.ms - before.ms,
  };
}

async function main() {
  const pool = await lib.scratchPool();
  try {
    await pool.query(`CREATE TABLE events (id varchar(40) PRIMARY KEY, payload jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now())`);
    await pool.query(`CREATE TABLE events_undispatched (event_id varchar(40) PRIMARY KEY,
      created_at timestamptz NOT NULL DEFAULT now())`);
    const rounds = [];
    for (let r = 1; r <= ROUNDS; r++) {
      const result = await round(pool);
      rounds.push(result);
      process.stderr.write(
        `round ${r}: commit p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, max ${result.max.toFixed(1)} ms, ` +
          `WAL flushes per commit ${result.walSyncsPerCommit.toFixed(2)}\n`,
      );
    }
    const summary = {
      rate_per_s: RATE,
      seconds_per_round: DURATION,
      commit_p50_ms_median: Number(median(rounds.map((x) => x.p50)).toFixed(1)),
      commit_p99_ms_median: Number(median(rounds.map((x) => x.p99)).toFixed(1)),
      commit_p99_ms_by_round: rounds.map((x) => Number(x.p99.toFixed(1))),
      commit_max_ms_by_round: rounds.map((x) => Number(x.max.toFixed(1))),
      wal_flushes_per_commit_by_round: rounds.map((x) => Number(x.walSyncsPerCommit.toFixed(2))),
    };
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } finally {
    await pool.end();
  }
}

lib.runBench(main);
