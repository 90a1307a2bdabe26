import { createServer, IncomingHttpHeaders, request as httpRequest, Server } from 'node:http';
import { AddressInfo } from 'node:net';

/**
 * What the proxy does to one request. Every fault forwards the request first, so the service has applied it:
 * `drop` then closes the client's connection without an answer, `503` and `429` answer that instead of the service's
 * answer (`429` with `Retry-After: 1`), `slow` holds the service's answer for `slowMs`.
 */
export type Fault = 'drop' | '503' | '429' | 'slow';

export interface ProxiedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  fault?: Fault;
  /** The service's own answer (before any fault replaced it). */
  upstream: { status: number; body: string };
}

/** An HTTP proxy on 127.0.0.1 in front of the real service that injects faults into the next requests, in order. */
export class FaultProxy {
  readonly requests: ProxiedRequest[] = [];
  private readonly faults: Fault[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private server?: Server;
  baseUrl = '';

  constructor(
    private readonly target: string,
    private readonly slowMs = 3000,
  ) {}

  /** The next requests meet these faults, one each; later requests pass through. */
  inject(...faults: Fault[]): void {
    this.faults.push(...faults);
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const fault = this.faults.shift();
        this.forward(req.method ?? 'GET', req.url ?? '/', req.headers, Buffer.concat(chunks)).then(
          (upstream) => {
            this.requests.push({
              method: req.method ?? '',
              path: req.url ?? '',
              headers: req.headers,
              fault,
              upstream: { status: upstream.status, body: upstream.body.toString('utf8') },
            });
            if (fault === 'drop') return void req.socket.destroy();
            if (fault === '503' || fault === '429') {
              const code = fault === '503' ? 'service_unavailable' : 'rate_limited';
              res.writeHead(Number(fault), { 'content-type': 'application/json', ...(fault === '429' ? { 'retry-after': '1' } : {}) });
              return void res.end(JSON.stringify({ status: 'error', error: { code, message: `injected ${fault}`, request_id: 'fault-proxy' } }));
            }
            const answer = () => {
              if (res.destroyed) return;
              res.writeHead(upstream.status, upstream.headers);
              res.end(upstream.body);
            };
            if (fault !== 'slow') return answer();
            const timer = setTimeout(() => {
              this.timers.delete(timer);
              answer();
            }, this.slowMs);
            this.timers.add(timer);
          },
          () => req.socket.destroy(),
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** The requests to a path (query string excluded) with a method. */
  to(method: string, path: string): ProxiedRequest[] {
    return this.requests.filter((r) => r.method === method && r.path.split('?')[0] === path);
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private forward(
    method: string,
    path: string,
    headers: IncomingHttpHeaders,
    body: Buffer,
  ): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
    return new Promise((resolve, reject) => {
      // A fresh connection each time (no agent): the service's keep-alive timing plays no part in the faults.
      const out = httpRequest(this.target + path, { method, headers: { ...headers, connection: 'close' }, agent: false }, (up) => {
        const parts: Buffer[] = [];
        up.on('data', (c: Buffer) => parts.push(c));
        up.on('end', () => {
          // Hop-by-hop headers describe the proxy's own connection to the service, not the answer.
          const rest = { ...up.headers };
          for (const hop of ['connection', 'keep-alive', 'transfer-encoding']) delete rest[hop];
          resolve({ status: up.statusCode ?? 502, headers: rest, body: Buffer.concat(parts) });
        });
        up.on('error', reject);
      });
      out.on('error', reject);
      out.end(body);
    });
  }
}
