import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express, NextFunction, Request, Response } from 'express';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { envelopeOf } from './envelope.interceptor';
import { SerializedBody } from './serialized-body';

/** How long in-flight requests get to finish once shutdown starts; stragglers are then cut. */
export const DRAIN_TIMEOUT_MS = 10_000;
const POLL_MS = 50;

/**
 * Requests and responses built with `prototype` as their prototype from the start, for Node's HTTP server (its
 * `IncomingMessage` and `ServerResponse` options). Node's constructors are plain functions, so calling one on `this`
 * builds its instance in place; `Reflect.construct` with another new target would cost more per request than the
 * prototype change it saves.
 */
function requestsWith(prototype: object): typeof IncomingMessage {
  const init = IncomingMessage as unknown as (this: IncomingMessage, socket: Socket) => void;
  function Request(this: IncomingMessage, socket: Socket): void {
    init.call(this, socket);
  }
  Request.prototype = prototype;
  return Request as unknown as typeof IncomingMessage;
}

function responsesWith(prototype: object): typeof ServerResponse {
  const init = ServerResponse as unknown as (this: ServerResponse, req: IncomingMessage, options?: object) => void;
  function Response(this: ServerResponse, req: IncomingMessage, options?: object): void {
    init.call(this, req, options);
  }
  Response.prototype = prototype;
  return Response as unknown as typeof ServerResponse;
}

/**
 * The Express adapter with a graceful stop. Nest calls `beforeClose()` before any module is destroyed, so draining
 * there lets every request in flight finish against live database and Redis pools: the listener closes (new
 * connections are refused), idle keep-alive sockets are closed, busy ones answer with `Connection: close`, and the
 * wait is bounded by DRAIN_TIMEOUT_MS. Only then do modules (queue workers, pools) shut down.
 */
export class DrainingExpressAdapter extends ExpressAdapter {
  private inFlight = 0;
  private draining = false;

  constructor(private readonly drainTimeoutMs = DRAIN_TIMEOUT_MS) {
    super();
    this.getInstance<Express>().use((req: Request, res: Response, next: NextFunction) => {
      this.inFlight++;
      res.once('close', () => this.inFlight--);
      if (this.draining) res.setHeader('Connection', 'close');
      next();
    });
  }

  /**
   * Node's HTTP server builds each request and response with the prototypes Express gives them (`app.request`,
   * `app.response`), so Express's `Object.setPrototypeOf` on every request finds them set and changes nothing. Changing
   * the prototype of a built object is slow in V8 and left the objects and what they reference to be promoted into the
   * old generation: about half of a cached keyed read's CPU and 11 kB of the 12 kB promoted per request. HTTPS,
   * `return503OnClosing` and `forceCloseConnections` (unused here) keep Nest's own server.
   */
  override initHttpServer(options: NestApplicationOptions): void {
    if (options?.httpsOptions || options?.return503OnClosing || options?.forceCloseConnections) return super.initHttpServer(options);
    const app = this.getInstance<Express>();
    const server = createServer(
      {
        IncomingMessage: requestsWith(app.request),
        ServerResponse: responsesWith(app.response),
      },
      app,
    );
    this.setHttpServer(server);
  }

  /**
   * Every handler's return value goes out in the success envelope (see envelopeOf). An envelope already encoded (a
   * cached catalogue read) is sent as its bytes: Nest's own reply would serialise a Buffer as JSON.
   */
  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    const sent = envelopeOf(response.req, response, body);
    if (!(body instanceof SerializedBody) || !Buffer.isBuffer(sent)) return super.reply(response, sent, statusCode);
    if (statusCode !== undefined && statusCode !== null) response.status(statusCode);
    return response.send(sent);
  }

  /**
   * Nest mounts its not-found handler under the global prefix and on excluded routes only, so any other unknown
   * path (`/nope`) would get Express's HTML page. Mounted once more at the root, after every route, every unknown
   * path answers the JSON envelope (404 `route_not_found`, or 405 when the path exists for other methods).
   */
  override setNotFoundHandler(
    handler: Parameters<ExpressAdapter['setNotFoundHandler']>[0],
    prefix?: string,
    excludedRoutes?: Parameters<ExpressAdapter['setNotFoundHandler']>[2],
  ): unknown {
    const result: unknown = super.setNotFoundHandler(handler, prefix, excludedRoutes);
    if (prefix) this.use(handler);
    return result;
  }

  // NestApplication.close() awaits beforeClose (HttpServer declares it `beforeClose?(): any`); only ExpressAdapter's
  // own declaration says void, so the promise returned here is waited for, not dropped.
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- awaited by NestApplication.close()
  override async beforeClose(): Promise<void> {
    super.beforeClose();
    if (this.draining) return;
    this.draining = true;
    const server = this.getHttpServer() as Server | undefined;
    if (!server?.listening) return;
    server.close(); // stop accepting; the callback would only fire once every socket is gone
    const deadline = Date.now() + this.drainTimeoutMs;
    while (this.inFlight > 0 && Date.now() < deadline) {
      server.closeIdleConnections(); // a keep-alive socket between two requests must not hold the process open
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    server.closeIdleConnections();
    if (this.inFlight > 0) server.closeAllConnections();
  }

  override close(): Promise<void> | undefined {
    const server = this.getHttpServer() as Server | undefined;
    if (!server?.listening) {
      server?.closeAllConnections();
      return undefined;
    }
    return super.close() as Promise<void> | undefined;
  }
}
