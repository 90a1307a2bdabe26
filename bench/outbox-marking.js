'use strict';
/**
 * The outbox's dispatch marking, two designs side by side (issue 30): `a`, events.dispatched_at under a partial index,
 * marked by UPDATE (the design before migration 1763900005001), and `b`, the keys in a table of their own, deleted on
 * dispatch (the service's). Both schemas live in one scratch database; LOOPS loops insert an event per transaction and
 * a fan-out marks them in batches, at most two at a time, as the service's does. Alternated rounds; prints PostgreSQL's
 * CPU per event from /proc and, when the cluster preloads it, pg_stat_statements per event (time and WAL).
 * `node bench/outbox-marking.js`; ROUNDS (6), DURATION (5 s), BENCH_DATABASE_URL as for the other benchmarks.
 */
const lib = require('./lib');
const { randomBytes } = require('node:crypto');
const ROUNDS = Number(process.env.ROUNDS ?? 6);
const DURATION = Number(process.env.DURATION ?? 5);
const LOOPS = 16;
const id22 = () => randomBytes(16).toString('base64url').slice(0, 22);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function main() {
  const pool = await lib.scratchPool();
  for (const t of ['a', 'b']) {
    await pool.query(`CREATE TABLE events_${t} (id varchar(40) PRIMARY KEY, partner_id int NOT NULL, mode varchar(4) NOT NULL, type varchar(40) NOT NULL,
      payload jsonb NOT NULL, occurred_at timestamptz NOT NULL, ${t === 'a' ? 'dispatched_at timestamptz,' : ''} created_at timestamptz NOT NULL DEFAULT now())`);
    await pool.query(`CREATE INDEX ON events_${t} (partner_id, mode, type, created_at)`);
  }
  await pool.query(`CREATE INDEX ON events_a (created_at) WHERE dispatched_at IS NULL`);
  await pool.query(`CREATE TABLE events_b_undispatched (event_id varchar(40) PRIMARY KEY, created_at timestamptz NOT NULL)`);
  await pool.query(`CREATE INDEX ON events_b_undispatched (created_at)`);
  const insert = {
    a: `INSERT INTO events_a (id, partner_id, mode, type, payload, occurred_at) SELECT * FROM unnest($1::varchar[], $2::int[], $3::varchar[], $4::varchar[], $5::jsonb[], $6::timestamptz[])`,
    b: `WITH e AS (INSERT INTO events_b (id, partner_id, mode, type, payload, occurred_at) SELECT * FROM unnest($1::varchar[], $2::int[], $3::varchar[], $4::varchar[], $5::jsonb[], $6::timestamptz[]) RETURNING id, created_at)
        INSERT INTO events_b_undispatched (event_id, created_at) SELECT id, created_at FROM e`,
  };
  const mark = {
    a: `UPDATE events_a SET dispatched_at = now() WHERE id = ANY ($1::varchar[]) AND dispatched_at IS NULL`,
    b: `DELETE FROM events_b_undispatched WHERE event_id = ANY ($1::varchar[])`,
  };
  async function run(t, seconds) {
    const waiting = [];
    let inFlight = 0;
    let n = 0;
    const running = new Set();
    const flush = () => {
      if (!waiting.length || inFlight >= 2) return;
      const batch = waiting.splice(0, 500);
      inFlight++;
      const p = pool.query(mark[t], [batch]).finally(() => {
        inFlight--;
        running.delete(p);
        setImmediate(flush);
      });
      running.add(p);
    };
    const until = Date.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: LOOPS }, async () => {
        while (Date.now() < until) {
          const c = await pool.connect();
          const id = `evt_${id22()}`;
          const payload = {
            enrollment_id: n,
            user_id: 123456,
            external_user_id: 'bench-123456',
            course_id: 1,
            course_title: 'Hot course',
            credits_deducted: 5,
            enrolled_at: new Date().toISOString(),
          };
          await c.query('BEGIN');
          await c.query(insert[t], [[id], [1], ['test'], ['course.enrolled'], [JSON.stringify(payload)], [new Date()]]);
          await c.query('COMMIT');
          c.release();
          n++;
          waiting.push(id);
          setImmediate(flush);
        }
      }),
    );
    while (waiting.length || running.size) await Promise.all([...running, new Promise((r) => setImmediate(r))]);
    return n;
  }
  await run('a', 3);
  await run('b', 3);
  const [{ loaded }] = (await pool.query(`SELECT current_setting('shared_preload_libraries') LIKE '%pg_stat_statements%' AS loaded`)).rows;
  if (loaded) {
    await pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await pool.query('SELECT pg_stat_statements_reset()');
  }
  const counts = { a: 0, b: 0 };
  const res = { a: [], b: [] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const t of r % 2 ? ['b', 'a'] : ['a', 'b']) {
      const cpu = lib.cpuMeter(process.pid);
      const n = await run(t, DURATION);
      counts[t] += n;
      const c = cpu.per(n);
      res[t].push({ rate: n / DURATION, backends: c.backends * 1000, server: c.server * 1000, bench: c.bench * 1000 });
      process.stderr.write(
        `round ${r + 1} ${t}: ${(n / DURATION).toFixed(0)}/s backends ${(c.backends * 1000).toFixed(0)} µs + server ${(c.server * 1000).toFixed(0)} µs per event\n`,
      );
    }
  }
  const st = !loaded
    ? { rows: [] }
    : await pool.query(
        `SELECT left(query, 40) AS q, calls::int, total_exec_time, wal_bytes::bigint AS wal, shared_blks_hit + shared_blks_dirtied AS blks FROM pg_stat_statements WHERE query LIKE '%events_%' AND query NOT LIKE '%pg_stat%' ORDER BY query`,
      );
  for (const r of st.rows) {
    const t = r.q.includes('events_a') ? 'a' : 'b';
    process.stdout.write(
      `${r.q.padEnd(42)} calls ${r.calls} (${(r.calls / counts[t]).toFixed(3)}/event), ${((r.total_exec_time * 1000) / counts[t]).toFixed(1)} µs/event, WAL ${(Number(r.wal) / counts[t]).toFixed(0)} B/event\n`,
    );
  }
  const hot = await pool.query(`SELECT relname, n_tup_upd, n_tup_hot_upd, n_tup_del FROM pg_stat_user_tables WHERE relname LIKE 'events%'`);
  const wal = await pool.query(`SELECT pg_current_wal_lsn()`);
  for (const t of ['a', 'b'])
    process.stdout.write(
      `${t === 'a' ? 'old (UPDATE dispatched_at)' : 'new (events_undispatched, DELETE)'}: ${median(res[t].map((x) => x.rate)).toFixed(0)}/s, PG backends ${median(res[t].map((x) => x.backends)).toFixed(0)} µs + PG own ${median(res[t].map((x) => x.server)).toFixed(0)} µs per event (medians of ${ROUNDS})\n`,
    );
  process.stdout.write(JSON.stringify(hot.rows) + '\n');
  await pool.end();
}
lib.runBench(main);
