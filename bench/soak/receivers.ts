import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

export type Behaviour = 'fast' | 'slow' | 'flaky' | 'outage';

export interface Receipt {
  deliveryId: string;
  event: string;
  signature: string;
  body: Buffer;
  answered: number;
}

/**
 * A partner's webhook endpoint with a temperament: `fast` always 200; `slow` answers in 0.2–1.2 s and sometimes
 * after the sender's timeout; `flaky` fails about a third of the time (500, 503, or 429 with Retry-After);
 * `outage` behaves but is switched off (connections refused) for a while during the run.
 */
export class SoakReceiver {
  readonly receipts: Receipt[] = [];
  private server?: Server;
  private port = 0;

  constructor(
    readonly behaviour: Behaviour,
    private readonly senderTimeoutMs: number,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.keepAliveTimeout = 5000;
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Goes down (refusing connections) for `ms`, then comes back on the same port. */
  async outage(ms: number): Promise<void> {
    await this.stop();
    await new Promise((r) => setTimeout(r, ms));
    await this.start();
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const [status, delay, headers] = this.decide();
      this.receipts.push({
        deliveryId: String(req.headers['x-svc-delivery'] ?? ''),
        event: String(req.headers['x-svc-event'] ?? ''),
        signature: String(req.headers['x-svc-signature'] ?? ''),
        body: Buffer.concat(chunks),
        answered: status,
      });
      setTimeout(() => {
        if (res.destroyed) return;
        res.writeHead(status, { 'content-type': 'text/plain', ...headers });
        res.end(status < 300 ? 'ok' : 'nope');
      }, delay);
    });
  }

  private decide(): [number, number, Record<string, string>] {
    const r = Math.random();
    switch (this.behaviour) {
      case 'slow':
        return [200, r < 0.08 ? this.senderTimeoutMs + 600 : 200 + Math.floor(Math.random() * 1000), {}];
      case 'flaky':
        if (r < 0.2) return [500, 0, {}];
        if (r < 0.3) return [503, 50, {}];
        if (r < 0.35) return [429, 0, { 'retry-after': '1' }];
        return [200, 0, {}];
      default:
        return [200, 0, {}];
    }
  }
}
