import net from 'node:net';

/**
 * A TCP proxy in front of a real PostgreSQL or Redis, so a test can take the dependency "down" (close every
 * connection and refuse new ones) or freeze it (connections stay open, nothing moves, like a stuck host) and bring
 * it back, without touching the shared server.
 */
export class TcpProxy {
  private server?: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private paused = false;
  /** When set, the first client chunk containing these bytes is passed on, then everything freezes. */
  private freezeOn?: Buffer;
  /** Bytes (and connections) held while paused, in arrival order. */
  private held: Array<() => void> = [];
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(port = this.port): Promise<number> {
    this.server = net.createServer((client) => {
      this.sockets.add(client);
      client.on('close', () => this.sockets.delete(client));
      client.on('error', () => client.destroy());
      this.whenFlowing(() => this.connect(client));
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this.port;
  }

  /** Drops every connection and stops listening: clients see resets, then refused connections. */
  async stop(): Promise<void> {
    this.resume();
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  /** Freezes the dependency: connections stay open and new ones are accepted, but no byte is passed on. */
  pause(): void {
    this.paused = true;
  }

  /**
   * Freezes right after the first client message containing `marker` reaches the server (e.g. a COMMIT): the server
   * acts on it, but its answer, and everything after, is held until resume(). The moment between a COMMIT and its
   * acknowledgement, made to last.
   */
  freezeAfter(marker: string): void {
    this.freezeOn = Buffer.from(marker);
  }

  /** Passes on everything held, in order, and lets traffic flow again. */
  resume(): void {
    this.paused = false;
    const held = this.held;
    this.held = [];
    for (const release of held) release();
  }

  private whenFlowing(action: () => void): void {
    if (this.paused) this.held.push(action);
    else action();
  }

  private connect(client: net.Socket): void {
    if (client.destroyed) return;
    const upstream = net.connect(this.targetPort, this.targetHost);
    this.sockets.add(upstream);
    upstream.on('close', () => this.sockets.delete(upstream));
    upstream.on('error', () => upstream.destroy());
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      from.on('data', (chunk: Buffer) =>
        this.whenFlowing(() => {
          if (!to.destroyed) to.write(chunk);
          if (from === client && this.freezeOn && chunk.includes(this.freezeOn)) {
            this.freezeOn = undefined;
            this.pause();
          }
        }),
      );
      from.on('close', () => this.whenFlowing(() => to.destroy()));
    }
  }
}
