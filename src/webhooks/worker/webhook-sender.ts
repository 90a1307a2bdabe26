import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, Dispatcher } from 'undici';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { ForbiddenTargetError, isForbiddenAddress, resolveSafely } from '../ssrf-guard';

export interface SendResult {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** First 1 kB of the response body, for the attempt log. */
  responseBody: string | null;
  retryAfter?: string;
}

const RESPONSE_SNIPPET_BYTES = 1024;
export const USER_AGENT = 'PartnerAPI-Webhooks/1.0 (+https://docs.partner-api.example/webhooks)';

/** Connect-time SSRF guard: resolves, checks every address, and hands the socket only the vetted ones. */
const vettedLookup: LookupFunction = (hostname, options, callback) => {
  resolveSafely(hostname).then(
    (addresses) => {
      const family = typeof options === 'object' ? options.family : undefined;
      const usable = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses;
      if (!usable.length) return callback(new ForbiddenTargetError(`${hostname} has no usable address`), '', 0);
      if (typeof options === 'object' && options.all) return (callback as unknown as (e: null, a: typeof usable) => void)(null, usable);
      callback(null, usable[0].address, usable[0].family);
    },
    (err: Error) => callback(err as NodeJS.ErrnoException, '', 0),
  );
};

/** A target URL as the dispatcher takes it, and its host as the literal-address check reads it. */
interface Target {
  origin: string;
  path: string;
  host: string;
}
/** Parsed targets by URL: a subscription's URL is parsed once per process, not once per attempt. */
const TARGET_CACHE_SIZE = 1000;

/** POSTs one signed body. Never follows redirects; any outcome is returned, not thrown. */
@Injectable()
export class WebhookSender implements OnApplicationShutdown {
  private readonly agent: Agent;
  private readonly targets = new Map<string, Target>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    const { timeoutMs, allowPrivateTargets } = config.webhook;
    this.agent = new Agent({
      connect: { timeout: timeoutMs, ...(allowPrivateTargets ? {} : { lookup: vettedLookup }) },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      keepAliveTimeout: 4_000,
      connections: 128,
    });
  }

  send(url: string, body: string | Buffer, headers: Record<string, string>): Promise<SendResult> {
    const started = performance.now();
    let target: Target;
    try {
      target = this.target(url);
      // Literal addresses never reach the lookup hook, so they are checked here.
      if (!this.config.webhook.allowPrivateTargets && isIP(target.host) && isForbiddenAddress(target.host)) {
        throw new ForbiddenTargetError(`${target.host} is a private or reserved address`);
      }
    } catch (e) {
      return Promise.resolve(failure(e, started, this.config.webhook.timeoutMs));
    }
    // The dispatcher's own interface rather than `request()`: the answer's first kilobyte is all an attempt keeps, so
    // no response stream, no abort signal and no promise per chunk are built for it (about half the client's CPU per
    // request, measured against a local receiver).
    return new Promise((resolve) => {
      const handler = new AttemptHandler(started, this.config.webhook.timeoutMs, resolve);
      try {
        this.agent.dispatch(
          {
            origin: target.origin,
            path: target.path,
            method: 'POST',
            body,
            headers: headers['user-agent'] === USER_AGENT ? headers : { ...headers, 'user-agent': USER_AGENT },
          },
          handler,
        );
      } catch (e) {
        handler.onResponseError(undefined, e as Error);
      }
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.agent.close().catch(() => undefined);
  }

  private target(url: string): Target {
    let target = this.targets.get(url);
    if (!target) {
      const parsed = new URL(url);
      target = { origin: parsed.origin, path: parsed.pathname + parsed.search, host: parsed.hostname.replace(/^\[|\]$/g, '') };
      if (this.targets.size >= TARGET_CACHE_SIZE) this.targets.clear();
      this.targets.set(url, target);
    }
    return target;
  }
}

/** The whole attempt, connection included, ends after the configured timeout, as the connect and header timeouts do. */
class AttemptTimeout extends Error {
  override readonly name = 'TimeoutError';
}

/**
 * One attempt's answer: status, the headers the record reads and the body's first RESPONSE_SNIPPET_BYTES; the rest of
 * a longer body is not read (the request is aborted once the snippet is full). Settles exactly once.
 */
class AttemptHandler implements Dispatcher.DispatchHandler {
  private controller?: Dispatcher.DispatchController;
  private statusCode = 0;
  private headers: Record<string, string | string[]> = {};
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private settled = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly started: number,
    private readonly timeoutMs: number,
    private readonly resolve: (result: SendResult) => void,
  ) {
    this.timer = setTimeout(() => this.fail(new AttemptTimeout(`Timed out after ${timeoutMs} ms`)), timeoutMs);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    // A request that waited for a connection past the timeout is not sent.
    if (this.settled) controller.abort(new AttemptTimeout('Timed out'));
    else this.controller = controller;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[]>): void {
    this.statusCode = statusCode; // a 1xx is followed by the final answer, which overwrites it
    this.headers = headers;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size >= RESPONSE_SNIPPET_BYTES) {
      this.succeed();
      controller.abort(new Error('Response snippet complete')); // the rest is not needed
    }
  }

  onResponseEnd(): void {
    this.succeed();
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, err: Error): void {
    this.fail(err);
  }

  private succeed(): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    const status = this.statusCode;
    const retryAfter = this.headers['retry-after'];
    this.resolve({
      statusCode: status,
      durationMs: Math.round(performance.now() - this.started),
      error: status >= 200 && status < 300 ? null : describeStatus(status, this.headers.location),
      responseBody: this.size
        ? (this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks)).subarray(0, RESPONSE_SNIPPET_BYTES).toString('utf8')
        : null,
      retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
    });
  }

  private fail(err: Error): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.controller?.abort(err);
    this.resolve(failure(err, this.started, this.timeoutMs));
  }
}

function failure(e: unknown, started: number, timeoutMs: number): SendResult {
  return { statusCode: null, durationMs: Math.round(performance.now() - started), error: describeError(e, timeoutMs), responseBody: null };
}

function describeStatus(status: number, location: unknown): string {
  if (status >= 300 && status < 400) return `Redirect (HTTP ${status}${typeof location === 'string' ? ` to ${location.slice(0, 200)}` : ''}) not followed`;
  return `HTTP ${status}`;
}

function describeError(e: unknown, timeoutMs: number): string {
  const err = e as Error & { code?: string; cause?: { code?: string; message?: string } };
  if (err instanceof ForbiddenTargetError || err.cause instanceof ForbiddenTargetError)
    return `Refused target: ${(err.cause as Error | undefined)?.message ?? err.message}`;
  if (err.name === 'TimeoutError' || err.code === 'UND_ERR_HEADERS_TIMEOUT' || err.code === 'UND_ERR_BODY_TIMEOUT' || err.code === 'UND_ERR_CONNECT_TIMEOUT') {
    return `Timed out after ${timeoutMs} ms`;
  }
  // Socket messages name the address the host resolved to ("connect ECONNREFUSED 10.0.0.7:443"), which would let a
  // partner map internal names: the record says what happened, from the error code alone.
  const code = err.code ?? err.cause?.code;
  return (code && SOCKET_ERRORS[code]) ?? (code && /^[A-Z][A-Z0-9_]{1,60}$/.test(code) ? `Request failed (${code})` : 'Request failed');
}

const SOCKET_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'Connection refused',
  ECONNRESET: 'Connection reset',
  EPIPE: 'Connection closed while sending',
  UND_ERR_SOCKET: 'Connection closed before a response',
  EHOSTUNREACH: 'Host unreachable',
  ENETUNREACH: 'Network unreachable',
  ENOTFOUND: 'Host not found',
  EAI_AGAIN: 'Host not found',
  ETIMEDOUT: `Connection timed out`,
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS certificate not trusted',
  SELF_SIGNED_CERT_IN_CHAIN: 'TLS certificate not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate does not match the host name',
};
