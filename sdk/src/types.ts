import type { FetchResponse, MaybeOptionalInit } from 'openapi-fetch';
import type { paths, webhooks } from './generated/openapi';

export type { paths, components, operations, webhooks } from './generated/openapi';

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch';

/** The document's routes that have an operation for `M`. */
export type PathsWith<M extends HttpMethod> = {
  [P in keyof paths]: paths[P] extends { [K in M]: infer O } ? ([O] extends [undefined] ? never : P) : never;
}[keyof paths];

/** Options the SDK adds to every call, next to openapi-fetch's `params`, `body`, `headers`, `signal`, `parseAs`. */
export interface CallOptions {
  /** Sent as `Idempotency-Key` on a POST (one is generated when absent); every retry of the call reuses it. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/** The call's second argument: required when the route has required path, query or body fields. */
export type InitArgs<P extends keyof paths, M extends HttpMethod> =
  undefined extends MaybeOptionalInit<paths[P], M>
    ? [init?: NonNullable<MaybeOptionalInit<paths[P], M>> & CallOptions]
    : [init: MaybeOptionalInit<paths[P], M> & CallOptions];

type Unwrap<T> = T extends { status: 'success'; data: infer D } ? D : T;

/** What a successful call answers: the envelope's `data` (or the body of the few routes without an envelope). */
export type ResponseData<P extends keyof paths, M extends HttpMethod> = Unwrap<
  NonNullable<FetchResponse<paths[P][M & keyof paths[P]] & Record<string | number, unknown>, object, 'application/json'>['data']>
>;

export interface ApiResponse<T> {
  data: T;
  status: number;
  /** The response's `X-Request-Id`. */
  requestId: string | null;
  /** True when the service answered a retried POST from its idempotency record (`Idempotent-Replayed: true`). */
  idempotentReplayed: boolean;
  headers: Headers;
  /** How many times the request was sent, retries included. */
  attempts: number;
}

type GetQuery<P extends keyof paths> = paths[P] extends { get: { parameters: { query?: infer Q } } } ? NonNullable<Q> : never;

/** Every list the service paginates with `page` and `limit`. */
export type PaginatedPath = {
  [P in PathsWith<'get'>]: [GetQuery<P>] extends [never] ? never : 'page' extends keyof GetQuery<P> ? P : never;
}[PathsWith<'get'>];

type PageData<P extends PaginatedPath> = ResponseData<P, 'get'>;

/** One item of a paginated list (`Course` for `/api/courses`, …). */
export type PageItem<P extends PaginatedPath> = {
  [K in keyof PageData<P>]-?: NonNullable<PageData<P>[K]> extends ReadonlyArray<infer I> ? I : never;
}[keyof PageData<P>];

type WebhookBody<E extends keyof webhooks> = webhooks[E] extends { post: { requestBody: { content: { 'application/json': infer B } } } } ? B : never;

/** A webhook delivery's body, discriminated by `event`: narrow with `switch (event.event)`. */
export type WebhookEvent = { [E in keyof webhooks]: WebhookBody<E> & { event: E } }[keyof webhooks];

/** The nine event types. */
export type WebhookEventType = WebhookEvent['event'];
