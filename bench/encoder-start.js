/**
 * A fresh start of the built service as `npm start` runs it (its worker in the same process, the demo catalogue, both
 * search engines on, the default number of encoder threads), on a scratch database of its own: the seconds from the
 * process's spawn to /health/ready, and to every demo course having its sentence vectors (`GET
 * /api/admin/search/index` answering `pending: 0`), with the process's RSS when ready, at its peak and at the end.
 *
 * The admin key the index endpoint needs is made with the operator CLI once the service is ready (migrations must
 * have run), so that CLI's own start (a few seconds of one core) overlaps the encoding, as an operator's would.
 *
 * Usage: npm run build && npm run bench:encoder-start   (BENCH_ENCODER_TIMEOUT_S, 600, bounds the wait)
 */
const { readFileSync } = require('node:fs');
const { cli, dbName, freePort, MAIN, runBench, serviceEnv, start, waitFor, requireBuild } = require('./lib');

const TIMEOUT_S = Number(process.env.BENCH_ENCODER_TIMEOUT_S ?? 600);

function rssMb(pid) {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return kb / 1024;
  } catch {
    return NaN;
  }
}

async function main() {
  requireBuild();
  const port = await freePort();
  const env = serviceEnv(port, {
    LOAD_DEMO_CATALOGUE: 'true',
    RUN_WORKER: 'true',
    SEARCH_EMBEDDED_ENGINE: 'true',
    SEARCH_SENTENCE_ENCODER: 'true',
  });
  delete env.SEARCH_ENCODER_THREADS;
  process.stderr.write(`scratch database ${dbName}; starting the service on a fresh database…\n`);
  const startedAt = Date.now();
  const service = start('service', MAIN, env);
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(service.pid) || 0)), 250);
  try {
    await waitFor(`http://127.0.0.1:${port}/health/ready`, service, TIMEOUT_S * 1000);
    const readyS = (Date.now() - startedAt) / 1000;
    const rssReady = rssMb(service.pid);
    const key = await cli(['admin-key', 'create', '--name', 'encoder-start bench'], env);
    let status;
    const until = startedAt + TIMEOUT_S * 1000;
    for (;;) {
      const res = await fetch(`http://127.0.0.1:${port}/api/admin/search/index`, { headers: { 'X-API-Key': key.api_key } });
      if (!res.ok) throw new Error(`GET /api/admin/search/index answered ${res.status}: ${await res.text()}`);
      status = (await res.json()).data;
      if (status.courses > 0 && status.pending === 0 && status.embedded === status.courses) break;
      if (Date.now() > until) throw new Error(`not encoded within ${TIMEOUT_S} s: ${JSON.stringify(status)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const encodedS = (Date.now() - startedAt) / 1000;
    // The encoder threads end with their run: the RSS a few seconds later is what the process keeps.
    await new Promise((r) => setTimeout(r, 5000));
    const result = {
      courses: status.courses,
      model: status.model,
      ready_s: Number(readyS.toFixed(1)),
      all_encoded_s: Number(encodedS.toFixed(1)),
      rss_ready_mb: Math.round(rssReady),
      rss_peak_mb: Math.round(peak),
      rss_after_mb: Math.round(rssMb(service.pid)),
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    clearInterval(sampler);
  }
}

runBench(main);
