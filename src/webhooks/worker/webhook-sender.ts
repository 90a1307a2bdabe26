import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
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

/** POSTs one signed body. Never follows redirects; any outcome is returned, not thrown. */
@Injectable()
export class WebhookSender implements OnApplicationShutdown {
  private readonly agent: Agent;

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

  async send(url: string, body: string | Buffer, headers: Record<string, string>): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const target = new URL(url);
      const host = target.hostname.replace(/^\[|\]$/g, '');
      // Literal addresses never reach the lookup hook, so they are checked here.
      if (!this.config.webhook.allowPrivateTargets && isIP(host) && isForbiddenAddress(host)) {
        throw new ForbiddenTargetError(`${host} is a private or reserved address`);
      }
      const res = await request(url, {
        method: 'POST',
        body,
        headers: { ...headers, 'user-agent': USER_AGENT },
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.config.webhook.timeoutMs),
      });
      const snippet = await readSnippet(res.body, res.headers['content-length']);
      const retryAfter = res.headers['retry-after'];
      return {
        statusCode: res.statusCode,
        durationMs: elapsed(),
        error: res.statusCode >= 200 && res.statusCode < 300 ? null : describeStatus(res.statusCode, res.headers.location),
        responseBody: snippet,
        retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
      };
    } catch (e) {
      return { statusCode: null, durationMs: elapsed(), error: describeError(e, this.config.webhook.timeoutMs), responseBody: null };
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.agent.close().catch(() => undefined);
  }
}

async function readSnippet(
  stream: AsyncIterable<Buffer> & { destroy(): void; arrayBuffer(): Promise<ArrayBuffer> },
  contentLength: string | string[] | undefined,
): Promise<string | null> {
  // A short answer of known length (most receivers' "ok" or "{}") is read whole, without an async iterator's promises.
  if (typeof contentLength === 'string' && Number(contentLength) <= RESPONSE_SNIPPET_BYTES) {
    const bytes = Buffer.from(await stream.arrayBuffer());
    return bytes.length ? bytes.toString('utf8') : null;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= RESPONSE_SNIPPET_BYTES) break; // leaving the loop destroys the stream: the rest is not needed
  }
  return size ? Buffer.concat(chunks).subarray(0, RESPONSE_SNIPPET_BYTES).toString('utf8') : null;
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
