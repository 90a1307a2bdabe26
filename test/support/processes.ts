import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const REGISTER = join(ROOT, 'scripts', 'swc-register.js');
const KEEP_LINES = 400;

/** Every process started here, so a failing test (or a crashed runner) leaves none behind. */
const started = new Set<ServiceProcess>();
process.once('exit', () => {
  for (const p of started) if (p.running) p.child.kill('SIGKILL');
});

/** SIGKILLs whatever is still running (afterAll). */
export async function killAll(): Promise<void> {
  await Promise.all([...started].map((p) => p.kill()));
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * One real service process (the API of src/main.ts or the worker of src/worker.ts), run from source through the
 * same swc transform jest uses, so no build is needed and the code under test is exactly the working tree.
 */
export class ServiceProcess {
  readonly output: string[] = [];
  readonly exited: Promise<Exit>;
  exit?: Exit;

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
    readonly baseUrl = '',
  ) {
    const keep = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) if (line) this.output.push(line);
      if (this.output.length > KEEP_LINES) this.output.splice(0, this.output.length - KEEP_LINES);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    started.add(this);
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        started.delete(this);
        resolve(this.exit);
      }),
    );
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return !this.exit;
  }

  /** Sends the signal and resolves with the exit, or rejects if the process outlives `timeoutMs`. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 30_000): Promise<Exit> {
    if (this.exit) return this.exit;
    this.child.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${this.name} still running ${timeoutMs} ms after ${signal}\n${this.tail()}`)), timeoutMs);
    });
    try {
      return await Promise.race([this.exited, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** SIGKILL, for cleanup and crash tests. */
  async kill(): Promise<Exit> {
    if (this.exit) return this.exit;
    this.child.kill('SIGKILL');
    return this.exited;
  }

  tail(lines = 40): string {
    return this.output.slice(-lines).join('\n');
  }
}

/** A port that was free a moment ago (the service binds it itself). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function spawnEntry(entry: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['-r', REGISTER, join(ROOT, 'src', entry)], {
    cwd: ROOT,
    // Small pools: a topology of four processes plus the test runner's own apps stays well under max_connections.
    env: { ...process.env, LOG_LEVEL: 'info', AUTO_MIGRATE: 'false', LOAD_DEMO_CATALOGUE: 'false', DATABASE_POOL_SIZE: '5', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function waitUntil(proc: ServiceProcess, ready: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (
    !(await Promise.resolve()
      .then(ready)
      .catch(() => false))
  ) {
    if (!proc.running) throw new Error(`${proc.name} exited during start-up (${JSON.stringify(proc.exit)})\n${proc.tail()}`);
    if (Date.now() > deadline) {
      await proc.kill();
      throw new Error(`${proc.name} not ready after ${timeoutMs} ms\n${proc.tail()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A process just spawned, and a promise that settles when it is ready (rejects if it exits or times out first). */
export interface Launched {
  proc: ServiceProcess;
  ready: Promise<ServiceProcess>;
}

/** Spawns `src/main.ts` on a free 127.0.0.1 port; ready once /health/ready answers 200. `env` overrides the run's. */
export async function launchApiProcess(name: string, env: Record<string, string> = {}, timeoutMs = 60_000): Promise<Launched> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const proc = new ServiceProcess(name, spawnEntry('main.ts', { HOST: '127.0.0.1', PORT: String(port), ...env }), baseUrl);
  const ready = waitUntil(proc, async () => (await fetch(`${baseUrl}/health/ready`)).status === 200, timeoutMs).then(() => proc);
  return { proc, ready };
}

/** Spawns `src/worker.ts`; ready at its "Worker started" log line. */
export function launchWorkerProcess(name: string, env: Record<string, string> = {}, timeoutMs = 60_000): Launched {
  const proc = new ServiceProcess(name, spawnEntry('worker.ts', env));
  const ready = waitUntil(proc, () => proc.output.some((l) => l.includes('Worker started')), timeoutMs).then(() => proc);
  return { proc, ready };
}

/** Starts `src/main.ts` on a free 127.0.0.1 port and waits until /health/ready answers 200. `env` overrides the run's. */
export async function startApiProcess(name: string, env: Record<string, string> = {}, timeoutMs = 60_000): Promise<ServiceProcess> {
  return (await launchApiProcess(name, env, timeoutMs)).ready;
}

/** Starts `src/worker.ts` and waits for its "Worker started" log line. */
export async function startWorkerProcess(name: string, env: Record<string, string> = {}, timeoutMs = 60_000): Promise<ServiceProcess> {
  return launchWorkerProcess(name, env, timeoutMs).ready;
}
