import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import Redis from 'ioredis';
import { freePort } from './processes';

/** The database a private server's users work in (not 0, so nothing here can ever be mistaken for the shared db 0). */
const DB = 1;

/**
 * A private `redis-server` process on a free 127.0.0.1 port, for tests that take Redis's data or its process away:
 * empty it, restart it empty, freeze it (SIGSTOP), stop it. The shared Redis of the run is never touched.
 * Needs the `redis-server` binary (installed wherever the suite's Redis is; `.ci/run` relies on it too).
 */
export class RedisServer {
  private child?: ChildProcess;
  private admin?: Redis;

  private constructor(
    readonly port: number,
    private readonly args: string[],
  ) {}

  /** Starts a server without persistence (a restart loses everything, like a cache or a failover). */
  static async start(extraArgs: string[] = []): Promise<RedisServer> {
    if (spawnSync('redis-server', ['--version']).error) throw new Error('redis-server is not installed: the durability tests start a private one');
    const server = new RedisServer(await freePort(), extraArgs);
    await server.launch();
    return server;
  }

  /** `redis://127.0.0.1:<port>/1`: point REDIS_URL of the app under test here. */
  get url(): string {
    return `redis://127.0.0.1:${this.port}/${DB}`;
  }

  /** A client of the private server's database (closed by stop()). */
  get client(): Redis {
    return this.admin!;
  }

  /** FLUSHDB on the private server's database: every key, queue and counter the app had is gone. */
  async flush(): Promise<void> {
    await this.admin!.flushdb();
  }

  /** SIGKILL and start again on the same port, empty. */
  async restartEmpty(): Promise<void> {
    await this.kill();
    await this.launch();
  }

  /** SIGSTOP: connections stay open but nothing answers, like a stuck host. */
  freeze(): void {
    this.child?.kill('SIGSTOP');
  }

  thaw(): void {
    this.child?.kill('SIGCONT');
  }

  async stop(): Promise<void> {
    this.thaw();
    await this.kill();
  }

  private async launch(): Promise<void> {
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...this.args], {
      stdio: 'ignore',
    });
    this.child = child;
    process.once('exit', () => child.kill('SIGKILL'));
    const deadline = Date.now() + 10_000;
    for (;;) {
      const probe = new Redis(this.url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        await probe.ping();
        probe.disconnect();
        break;
      } catch (e) {
        probe.disconnect();
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`redis-server on port ${this.port} did not start: ${(e as Error).message}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    this.admin = new Redis(this.url, { retryStrategy: () => 200 });
    this.admin.on('error', () => undefined);
  }

  private async kill(): Promise<void> {
    this.admin?.disconnect();
    this.admin = undefined;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}
