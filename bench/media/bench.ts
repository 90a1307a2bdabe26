/**
 * bench:media: one publisher sending about 1 Mbps of synthetic VP8 video (plus Opus) through the relay (the service's
 * MediaRoom in a child process) to N Node viewers, for each N in BENCH_VIEWERS (10,50,100,200). Per step: frames
 * decoded per viewer against frames sent, the relay's CPU (% of one core) and memory per viewer, and the relay-added
 * latency (packet arrival at the relay → hand-over to each viewer's socket) p50/p95. Clients and relay share the cores.
 */
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { NodePublisher, NodeViewer } from '../../test/support/webrtc-client';

const STEPS = (process.env.BENCH_VIEWERS ?? '10,50,100,200').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

const relay = fork(join(__dirname, 'relay-process.ts'), [], { execArgv: ['-r', join(__dirname, '..', '..', 'scripts', 'swc-register.js')] });
let nextId = 0;
const pending = new Map<number, (m: Record<string, unknown>) => void>();
relay.on('message', (m: { id: number }) => pending.get(m.id)?.(m as Record<string, unknown>));
function ask<T>(kind: string, sdp?: string): Promise<T> {
  const id = ++nextId;
  return new Promise((resolve) => {
    pending.set(id, (m) => resolve(m as T));
    relay.send({ id, kind, sdp });
  });
}

async function connect(pc: NodeViewer['pc'], kind: 'publish' | 'play'): Promise<void> {
  await pc.setLocalDescription(await pc.createOffer());
  await new Promise((r) => setTimeout(r, 200));
  const { answer } = await ask<{ answer: string }>(kind, pc.localDescription!.sdp);
  await pc.setRemoteDescription({ type: 'answer', sdp: answer });
}

const pct = (xs: number[], p: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] : NaN);

async function main(): Promise<void> {
  // 640×480 at 25 fps of a moving pattern: libwebrtc's encoder settles around 1 Mbps on loopback.
  const publisher = new NodePublisher(Number(process.env.BENCH_WIDTH ?? 640), Number(process.env.BENCH_HEIGHT ?? 480), 25);
  await connect(publisher.pc, 'publish');
  (publisher as unknown as { start(): void }).start();
  const viewers: NodeViewer[] = [];
  const rows: string[] = [
    '| viewers | frames sent | frames per viewer (median / min) | delivered (median) | relay CPU (% of a core) | CPU per viewer | relay RSS (MB) | RSS per viewer (MB) | relay-added p50 / p95 (ms) |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  const base = await ask<{ sample: { rss: number } }>('sample');
  for (const n of STEPS) {
    while (viewers.length < n) {
      const v = new NodeViewer();
      await connect(v.pc, 'play');
      viewers.push(v);
    }
    await new Promise((r) => setTimeout(r, 3000)); // everyone past the first key frame
    const before = await ask<{ sample: { cpu: NodeJS.CpuUsage; stats: { packetsIn: number } } }>('sample');
    const framesBefore = viewers.map((v) => v.frames);
    const sentBefore = publisher.sentAt.size;
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const elapsed = performance.now() - t0;
    const after = await ask<{ sample: { cpu: NodeJS.CpuUsage; rss: number; latencies: number[]; stats: { packetsIn: number } } }>('sample');
    const sent = publisher.sentAt.size - sentBefore;
    const got = viewers.map((v, i) => v.frames - framesBefore[i]);
    const cpu = ((after.sample.cpu.user + after.sample.cpu.system - before.sample.cpu.user - before.sample.cpu.system) / 1000 / elapsed) * 100;
    const rssMb = after.sample.rss / 1e6;
    const lat = after.sample.latencies;
    rows.push(
      `| ${n} | ${sent} | ${pct(got, 50)} / ${Math.min(...got)} | ${((pct(got, 50) / sent) * 100).toFixed(1)} % | ${cpu.toFixed(0)} | ${(cpu / n).toFixed(2)} | ${rssMb.toFixed(0)} | ${((after.sample.rss - base.sample.rss) / 1e6 / n).toFixed(2)} | ${pct(lat, 50).toFixed(1)} / ${pct(lat, 95).toFixed(1)} |`,
    );
    console.log(rows.at(-1));
  }
  console.log(`\n${rows.join('\n')}\n(${SECONDS} s per step; publisher ${publisher.sentAt.size} frames in all)`);
  for (const v of viewers) v.close();
  publisher.close();
  relay.kill();
  process.exit(0);
}

void main();
