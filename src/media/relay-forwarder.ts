import { request as httpRequest, IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Request, Response } from 'express';
import { requestIdOf } from '../common/request-id';

/** Marks a request one instance forwarded to another, so it is never forwarded a second time. */
export const FORWARDED_HEADER = 'x-media-forwarded-by';

/** What is passed on to the owner: the signalling itself and who asks, nothing of this hop's connection. */
const REQUEST_HEADERS = ['authorization', 'content-type', 'accept', 'user-agent'];
/** What the owner's answer carries back to the client. */
const RESPONSE_HEADERS = ['content-type', 'location', 'etag', 'cache-control', 'allow', 'retry-after', 'x-request-id'];

/** A dead owner's address refuses at once; an unreachable machine is given this long to accept the connection. */
const CONNECT_TIMEOUT_MS = 1000;

export interface ForwardedAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** The owner could not be asked: `refused` when nothing listens at its address (the process is gone). */
export class OwnerUnreachable extends Error {
  constructor(
    readonly refused: boolean,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Sends one signalling request on to the instance that owns the webinar's relay, over plain HTTP to its internal
 * address, and copies the answer back. The owner authorises and answers exactly as if the client had reached it.
 */
export async function forwardToOwner(ownerUrl: string, req: Request, fromInstance: string, timeoutMs: number): Promise<ForwardedAnswer> {
  const target = new URL(req.originalUrl, ownerUrl);
  const headers: Record<string, string> = { [FORWARDED_HEADER]: fromInstance };
  for (const name of REQUEST_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  // The owner logs and answers under the request id this instance gave the request.
  headers['x-request-id'] = requestIdOf(req);
  const body: unknown = req.body;
  const payload = typeof body === 'string' ? Buffer.from(body, 'utf8') : null;
  if (payload) headers['content-length'] = String(payload.length);

  return new Promise<ForwardedAnswer>((resolve, reject) => {
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const outgoing = send(target, { method: req.method, headers });
    const fail = (err: OwnerUnreachable) => {
      clearTimeout(connectTimer);
      clearTimeout(totalTimer);
      outgoing.destroy();
      reject(err);
    };
    const connectTimer = setTimeout(
      () => fail(new OwnerUnreachable(false, `no connection to ${target.origin} within ${CONNECT_TIMEOUT_MS} ms`)),
      CONNECT_TIMEOUT_MS,
    );
    const totalTimer = setTimeout(() => fail(new OwnerUnreachable(false, `no answer from ${target.origin} within ${timeoutMs} ms`)), timeoutMs);
    outgoing.on('socket', (socket) => {
      if (!socket.connecting) clearTimeout(connectTimer);
      else socket.once('connect', () => clearTimeout(connectTimer));
    });
    outgoing.on('error', (err: NodeJS.ErrnoException) => fail(new OwnerUnreachable(err.code === 'ECONNREFUSED', `${target.origin}: ${err.message}`)));
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (c: Buffer) => chunks.push(c));
      incoming.on('error', (err) => fail(new OwnerUnreachable(false, `${target.origin}: ${err.message}`)));
      incoming.on('end', () => {
        clearTimeout(connectTimer);
        clearTimeout(totalTimer);
        resolve({ status: incoming.statusCode ?? 502, headers: incoming.headers, body: Buffer.concat(chunks) });
      });
    });
    outgoing.end(payload ?? undefined);
  });
}

/** Writes the owner's answer as this instance's own. */
export function sendForwarded(res: Response, answer: ForwardedAnswer): void {
  res.status(answer.status);
  for (const name of RESPONSE_HEADERS) {
    const value = answer.headers[name];
    if (value !== undefined) res.setHeader(name, value);
  }
  res.end(answer.body);
}
