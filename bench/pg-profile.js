'use strict';
/**
 * PostgreSQL's side of a benchmark, sampled while it runs (used by bench/enroll.js with BENCH_PG_PROFILE=true):
 *   - wait events: pg_stat_activity of the scratch database's backends every BENCH_PG_SAMPLE_MS (10) ms; each
 *     sample counts what every active backend is doing (CPU = no wait event, Lock:transactionid = waiting for
 *     another transaction's row lock, IO:WALSync / LWLock:WALWrite = waiting for the commit's WAL flush, Client:
 *     ClientRead = idle in transaction, waiting for the application's next statement);
 *   - statements: pg_stat_statements of that database (calls, mean and total time, shared blocks hit/read and WAL
 *     bytes per statement), when the cluster preloads it (`shared_preload_libraries = pg_stat_statements`; see
 *     bench/README.md for a second cluster on port 5433 that does).
 */
const { Client } = require('pg');

/** Starts sampling wait events of `database`; `stop()` resolves to rows sorted by share of samples. */
function sampleWaits(connectionString, database, intervalMs = Number(process.env.BENCH_PG_SAMPLE_MS ?? 10)) {
  const client = new Client({ connectionString });
  const counts = new Map();
  let samples = 0;
  let stopped = false;
  const loop = (async () => {
    await client.connect();
    while (!stopped) {
      const { rows } = await client.query(
        `SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU') AS what, state, count(*)::int AS n
           FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND state IN ('active', 'idle in transaction')
          GROUP BY 1, 2`,
        [database],
      );
      samples++;
      for (const r of rows) {
        const key = r.state === 'idle in transaction' ? 'idle in transaction (waiting for the client)' : r.what;
        counts.set(key, (counts.get(key) ?? 0) + r.n);
      }
      await new Promise((r) => setTimeout(r, intervalMs));
    }
    await client.end();
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      const total = [...counts.values()].reduce((a, b) => a + b, 0) || 1;
      return {
        samples,
        rows: [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([what, n]) => ({ what, share: n / total, perSample: n / Math.max(samples, 1) })),
      };
    },
  };
}

/** pg_stat_statements of `database`, or null when the cluster does not preload it. Resets it first if asked. */
async function statements(connectionString, database, { reset = false, limit = 16 } = {}) {
  const client = new Client({ connectionString });
  await client.connect();
  try {
    const [{ loaded }] = (await client.query(`SELECT current_setting('shared_preload_libraries') LIKE '%pg_stat_statements%' AS loaded`)).rows;
    if (!loaded) return null;
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    if (reset) {
      await client.query('SELECT pg_stat_statements_reset()');
      return [];
    }
    const { rows } = await client.query(
      `SELECT s.calls::bigint AS calls, round(s.mean_exec_time::numeric, 3) AS mean_ms, round(s.total_exec_time::numeric) AS total_ms,
              s.shared_blks_hit AS hit, s.shared_blks_read AS read, s.wal_bytes AS wal_bytes, left(regexp_replace(s.query, '\\s+', ' ', 'g'), 110) AS query
         FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
        WHERE d.datname = $1 ORDER BY s.total_exec_time DESC LIMIT $2`,
      [database, limit],
    );
    return rows;
  } finally {
    await client.end();
  }
}

function formatWaits({ samples, rows }) {
  return [
    `wait events (${samples} samples of active backends):`,
    ...rows.slice(0, 10).map((r) => `  ${(r.share * 100).toFixed(1).padStart(5)} %  ${r.perSample.toFixed(2).padStart(6)} backends/sample  ${r.what}`),
  ].join('\n');
}

/** The statements of a run by total time; with `enrolments`, also their calls and milliseconds per enrolment. */
function formatStatements(rows, enrolments) {
  if (!rows) return 'pg_stat_statements: not preloaded by this cluster (see bench/README.md, "Profiling PostgreSQL beside Node")';
  const per = (x) => (enrolments ? (Number(x) / enrolments).toFixed(3).padStart(8) : '');
  return [
    `pg_stat_statements (by total time${enrolments ? `; per enrolment over ${enrolments}` : ''}):`,
    `     calls${enrolments ? '  calls/e' : ''}  mean ms  total ms${enrolments ? '   ms/e' : ''}  blks hit  blks read  WAL bytes  query`,
    ...rows.map(
      (r) =>
        `  ${String(r.calls).padStart(8)}${per(r.calls)} ${String(r.mean_ms).padStart(8)} ${String(r.total_ms).padStart(9)}${per(r.total_ms)} ${String(r.hit).padStart(9)} ${String(r.read).padStart(10)} ${String(r.wal_bytes).padStart(10)}  ${r.query}`,
    ),
  ].join('\n');
}

module.exports = { sampleWaits, statements, formatWaits, formatStatements };
