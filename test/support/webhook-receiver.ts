import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  /** The raw bytes, exactly as received. */
  body: Buffer;
  receivedAt: number;
}

export interface ScriptedResponse {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering (to trigger the sender's timeout). */
  delayMs?: number;
}

/**
 * A real HTTP endpoint on 127.0.0.1 that records every request and answers from a per-path script
 * (one scripted response per request, in order; 200 once the script is used up).
 */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  private readonly scripts = new Map<string, ScriptedResponse[]>();
  private server?: Server;
  baseUrl = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        this.requests.push({ path, method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks), receivedAt: Date.now() });
        const next = this.scripts.get(path)?.shift() ?? {};
        const answer = () => {
          if (res.destroyed) return;
          res.writeHead(next.status ?? 200, { 'content-type': 'text/plain', ...next.headers });
          res.end(next.body ?? 'ok');
        };
        if (next.delayMs) setTimeout(answer, next.delayMs);
        else answer();
      });
    });
    this.server.keepAliveTimeout = 5000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  url(path: string): string {
    return this.baseUrl + path;
  }

  script(path: string, ...responses: ScriptedResponse[]): void {
    this.scripts.set(path, [...(this.scripts.get(path) ?? []), ...responses]);
  }

  at(path: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

/** Polls until `check` returns a truthy value, or fails after `timeoutMs`. */
export async function waitFor<T>(check: () => T | Promise<T>, timeoutMs = 10_000, what = 'condition'): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
