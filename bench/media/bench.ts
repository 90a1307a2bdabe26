/**
 * bench:media: the service's live media path as users take it, measured from outside. The service runs as its own
 * process (src/main.ts on a scratch database, relay bound to 127.0.0.1); a public webinar gets one publisher over
 * WHIP (a wrtc process sending synthetic VP8 at about 1 Mbps, plus Opus) and N viewers over WHEP through HTTP (werift
 * peers in BENCH_CLIENT_PROCS processes), for each N in BENCH_VIEWERS. Each step's new viewers join at once (a
 * webinar's start), then BENCH_ROUNDS windows of BENCH_SECONDS are measured and their medians printed: the share of
 * frames each viewer received whole, CPU and memory of the service and, apart, of the clients, and the relay-added
 * latency (send → decode through the relay minus send → decode over a direct peer connection, same process and clock).
 */
import { ChildProcess, execFile, fork, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg, setPriority } from 'node:os';
import { join } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const lib = require('../lib.js') as {
  ROOT: string;
  cpuMs(pid: number): number;
  freePort(): Promise<number>;
  serviceEnv(port: number, extra?: Record<string, string>): NodeJS.ProcessEnv;
  waitFor(url: string, child: ChildProcess, timeoutMs?: number): Promise<void>;
  runBench(main: () => Promise<void>, extraCleanup?: () => unknown): void;
};

const STEPS = (process.env.BENCH_VIEWERS ?? '10,50,100,200').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PROCS = Number(process.env.BENCH_CLIENT_PROCS ?? 2);
const JOIN_CONCURRENCY = Number(process.env.BENCH_JOIN_CONCURRENCY ?? 1000);
const WIDTH = Number(process.env.BENCH_WIDTH ?? 640);
const HEIGHT = Number(process.env.BENCH_HEIGHT ?? 480);
const BITRATE = Number(process.env.BENCH_BITRATE ?? 1_000_000);
/** A niceness for the service and the clients (e.g. -10, as root): on a machine shared with other work, a share of the cores like a machine of their own. */
const NICE = process.env.BENCH_NICE === undefined ? undefined : Number(process.env.BENCH_NICE);
const REGISTER = ['-r', join(lib.ROOT, 'scripts', 'swc-register.js')];
const children: ChildProcess[] = [];

function child(file: string): ChildProcess & { ask<T>(msg: Record<string, unknown>): Promise<T> } {
  const c = fork(join(__dirname, file), [], { execArgv: REGISTER, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.push(c);
  let next = 0;
  const pending = new Map<number, (m: unknown) => void>();
  c.on('message', (m: { id: number }) => pending.get(m.id)?.(m));
  return Object.assign(c, {
    ask<T>(msg: Record<string, unknown>): Promise<T> {
      const id = ++next;
      return new Promise<T>((resolve) => {
        pending.set(id, (m) => (pending.delete(id), resolve(m as T)));
        c.send({ ...msg, id });
      });
    },
  });
}

/** Sets BENCH_NICE on every thread of our processes (a thread's niceness is its own; new threads inherit their creator's). */
function renice(): void {
  if (NICE === undefined) return;
  for (const pid of [process.pid, ...children.map((c) => c.pid!)])
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        setPriority(Number(tid), NICE);
      } catch {
        // the thread ended meanwhile
      }
    }
}

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const pct = (xs: number[], p: number) => (xs.length ? sorted(xs)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] : NaN);
const median = (xs: number[]) => pct(xs, 50);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function api<T>(base: string, key: string, path: string, body: unknown): Promise<T> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'X-API-Key': key, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as { data: T };
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json.data;
}

type PublisherSample = {
  t: number;
  cpu: NodeJS.CpuUsage;
  framesEncoded: number;
  bytesSent: number;
  keyFramesEncoded: number;
  pliCount: number;
  relay: { frames: number; latencies: number[] };
  direct: { frames: number; latencies: number[] };
};
type ViewersSample = {
  t: number;
  cpu: NodeJS.CpuUsage;
  rss: number;
  frames: number[];
  started: number[];
  connected: number;
  receiving: number;
  states: Record<string, number>;
  failedJoins: number;
  lastJoinError: string;
};

async function main(): Promise<void> {
  const port = await lib.freePort();
  const env = lib.serviceEnv(port, { MEDIA_PUBLIC_IP: '127.0.0.1', LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info' });
  const flags = process.env.BENCH_NODE_FLAGS ? process.env.BENCH_NODE_FLAGS.split(' ') : [];
  const service = spawn(process.execPath, [...flags, ...REGISTER, join(lib.ROOT, 'src', 'main.ts')], {
    cwd: lib.ROOT,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(service);
  const base = `http://127.0.0.1:${port}`;
  await lib.waitFor(`${base}/health/ready`, service);
  const partner = await new Promise<{ api_key: string }>((resolve, reject) =>
    execFile(
      process.execPath,
      [...REGISTER, join(lib.ROOT, 'src', 'cli.ts'), 'partner', 'create', '--name', 'Bench', '--email', 'bench@example.com', '--plan', 'enterprise'],
      { cwd: lib.ROOT, env },
      (err, stdout, stderr) => (err ? reject(new Error(stderr || err.message)) : resolve(JSON.parse(stdout.trim().split('\n').pop()!) as { api_key: string })),
    ),
  );
  const host = await api<{ id: number }>(base, partner.api_key, '/api/users', { external_user_id: 'bench-host', name: 'Host', email: 'host@example.com' });
  const webinar = await api<{ webinar_id: string; host_join_url: string }>(base, partner.api_key, '/api/webinars/create', {
    title: 'Benchmark webinar',
    host_id: host.id,
    scheduled_at: new Date(Date.now() + 3_600_000).toISOString(),
    is_public: true,
  });
  const whep = `${base}/live/${webinar.webinar_id}/whep`;
  process.stderr.write(`service pid ${service.pid}, WHEP ${whep}\n`);
  const idleRss = rssBytes(service.pid!);

  const publisher = child('publisher-process.ts');
  const viewerProcs = Array.from({ length: PROCS }, () => child('viewers-process.ts'));
  await publisher.ask({
    kind: 'publish',
    whip: `${base}/live/${webinar.webinar_id}/whip`,
    token: new URL(webinar.host_join_url).searchParams.get('t'),
    width: WIDTH,
    height: HEIGHT,
    fps: 25,
    bitrate: BITRATE,
  });
  await publisher.ask({ kind: 'probe', whep });
  renice();
  await sleep(3000);

  const sample = async () => {
    const [pub, views] = await Promise.all([
      publisher.ask<{ sample: PublisherSample }>({ kind: 'sample' }),
      Promise.all(viewerProcs.map((v) => v.ask<{ sample: ViewersSample }>({ kind: 'sample' }))),
    ]);
    return {
      at: performance.now(),
      serviceCpu: lib.cpuMs(service.pid!),
      serviceRss: rssBytes(service.pid!),
      pub: pub.sample,
      views: views.map((v) => v.sample),
    };
  };
  const cpuOf = (a: NodeJS.CpuUsage, b: NodeJS.CpuUsage) => (b.user + b.system - a.user - a.system) / 1000;

  // The service's own CPU with the publisher and one probe only: what each step's viewers add is measured from it.
  const base0 = await sample();
  await sleep(SECONDS * 1000);
  const base1 = await sample();
  const baseCpu = (base1.serviceCpu - base0.serviceCpu) / 10 / ((base1.at - base0.at) / 1000);
  process.stderr.write(`service with the publisher and one probe: ${baseCpu.toFixed(1)} % of a core\n`);

  const header =
    '| viewers | load (1 min) | join (s) | video Mbps | frames encoded | whole frames per viewer (median / min) | whole of frames seen (median) | viewers ≥ 99 % whole | relay probe decoded | connected | service CPU (% of a core) | added per connected viewer | service RSS (MB) | per viewer | clients CPU (publisher + viewers) | relay-added p50 / p95 (ms) | direct p50 / p95 (ms) |';
  const rows = [header, `|${'---|'.repeat(header.split('|').length - 2)}`];
  let current = 0;
  for (const n of STEPS) {
    const joinStarted = performance.now();
    const add = n - current;
    await Promise.all(
      viewerProcs.map((v, i) => {
        const count = Math.floor(add / PROCS) + (i < add % PROCS ? 1 : 0);
        return count ? v.ask({ kind: 'join', whep, count, concurrency: JOIN_CONCURRENCY }) : Promise.resolve();
      }),
    );
    current = n;
    renice();
    // Connected, then past a key frame: wait until every viewer has had whole frames, at most 30 s.
    const until = Date.now() + 30_000;
    while (Date.now() < until) {
      const s = await sample();
      if (s.views.reduce((a, v) => a + v.connected, 0) >= n && s.views.every((v) => v.frames.every((f) => f > 0))) break;
      await sleep(500);
    }
    const joinSeconds = (performance.now() - joinStarted) / 1000;
    await publisher.ask({ kind: 'probe', whep });
    await sleep(3000);
    const rounds: Array<Record<string, number>> = [];
    for (let r = 0; r < ROUNDS; r++) {
      const a = await sample();
      await sleep(SECONDS * 1000);
      const b = await sample();
      const secs = (b.at - a.at) / 1000;
      const encoded = b.pub.framesEncoded - a.pub.framesEncoded;
      // Frame rates over each process's own sampling instants: IPC answers lag by different amounts on a busy machine.
      // Whole frames among the frames each viewer saw a packet of: what the relay and the network lost, apart from the encoder's drops.
      const wholeShare = b.views.flatMap((v, i) =>
        v.frames.map((f, j) => (f - (a.views[i].frames[j] ?? 0)) / Math.max(1, v.started[j] - (a.views[i].started[j] ?? 0))),
      );
      const perViewer = b.views.flatMap((v, i) => v.frames.map((f, j) => ((f - (a.views[i].frames[j] ?? 0)) / (v.t - a.views[i].t)) * (b.pub.t - a.pub.t)));
      const serviceCpu = (b.serviceCpu - a.serviceCpu) / 10 / secs;
      const viewersCpu = b.views.reduce((s, v, i) => s + cpuOf(a.views[i].cpu, v.cpu), 0) / 10 / secs;
      const { relay, direct } = b.pub;
      rounds.push({
        load: loadavg()[0],
        connected: b.views.reduce((s, v) => s + v.connected, 0),
        receiving: b.views.reduce((s, v) => s + v.receiving, 0),
        failedJoins: b.views.reduce((s, v) => s + v.failedJoins, 0),
        mbps: ((b.pub.bytesSent - a.pub.bytesSent) * 8) / secs / 1e6,
        encoded,
        keyFrames: b.pub.keyFramesEncoded - a.pub.keyFramesEncoded,
        plis: b.pub.pliCount - a.pub.pliCount,
        medianFrames: median(perViewer),
        minFrames: Math.min(...perViewer),
        delivered: median(wholeShare) * 100,
        atTarget: wholeShare.filter((f) => f >= 0.99).length,
        probe: relay.frames - a.pub.relay.frames,
        serviceCpu,
        serviceRss: b.serviceRss / 1e6,
        rssPerViewer: (b.serviceRss - idleRss) / 1e6 / n,
        publisherCpu: cpuOf(a.pub.cpu, b.pub.cpu) / 10 / secs,
        viewersCpu,
        relayP50: pct(relay.latencies, 50) - pct(direct.latencies, 50),
        relayP95: pct(relay.latencies, 95) - pct(direct.latencies, 95),
        directP50: pct(direct.latencies, 50),
        directP95: pct(direct.latencies, 95),
      });
      const states = b.views.map((v) => `${JSON.stringify(v.states)} ${v.lastJoinError}`).join(' ');
      process.stderr.write(
        `${n} viewers, round ${r + 1}: ${JSON.stringify(rounds.at(-1), (_k, v: unknown) => (typeof v === 'number' ? Math.round(v * 10) / 10 : v))} ${states}\n`,
      );
    }
    const m = (k: string) => median(rounds.map((r) => r[k]));
    const f = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '–');
    rows.push(
      `| ${n} | ${f(m('load'))} | ${f(joinSeconds)} | ${f(m('mbps'), 2)} | ${m('encoded')} | ${f(m('medianFrames'), 0)} / ${f(m('minFrames'), 0)} | ${f(m('delivered'))} % | ${m('atTarget')} of ${n} | ${m('probe')} | ${m('connected')} | ${f(m('serviceCpu'), 0)} | ${f((m('serviceCpu') - baseCpu) / m('connected'), 2)} | ${f(m('serviceRss'), 0)} | ${f(m('rssPerViewer'), 2)} | ${f(m('publisherCpu'), 0)} + ${f(m('viewersCpu'), 0)} | ${f(m('relayP50'))} / ${f(m('relayP95'))} | ${f(m('directP50'))} / ${f(m('directP95'))} |`,
    );
    process.stderr.write(`${rows.at(-1)}\n`);
  }
  console.log(
    `\n${rows.join('\n')}\n\n${ROUNDS} rounds of ${SECONDS} s per step, medians; ${WIDTH}×${HEIGHT} VP8 at 25 fps; clients in ${PROCS} + 1 processes; service alone with the publisher and one probe: ${baseCpu.toFixed(1)} % of a core${NICE === undefined ? '' : `; niceness ${NICE}`}.`,
  );
}

lib.runBench(main, () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
});
