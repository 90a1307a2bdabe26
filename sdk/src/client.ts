import createClient, { type Client } from 'openapi-fetch';
import { PartnerApiError } from './errors';
import type { paths } from './generated/openapi';
import { RequestContext, RetryingTransport } from './transport';
import type { ApiResponse, CallOptions, HttpMethod, InitArgs, PageItem, PaginatedPath, PathsWith, ResponseData } from './types';
import { webhooks } from './webhooks';

export const SDK_VERSION = '0.1.0';

export interface PartnerApiOptions {
  /** Your key: `eck_test_…` or `eck_live_…`. */
  apiKey: string;
  /** The service's origin, e.g. `https://partners.example.com` (a trailing `/api` is accepted too). */
  baseUrl: string;
  /** How long one attempt may take. Default 30,000 ms. */
  timeoutMs?: number;
  /** Retries after the first attempt, for the failures that are safe to retry. Default 2. */
  maxRetries?: number;
  /** No retry starts after this long since the first attempt, nor one whose wait would end later. Default 60,000 ms. */
  maxRetryTimeMs?: number;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch;
}

type Body<P extends keyof paths, M extends HttpMethod> = paths[P][M & keyof paths[P]] extends { requestBody?: { content: { 'application/json': infer B } } }
  ? B
  : never;
type Query<P extends keyof paths, M extends HttpMethod> = paths[P][M & keyof paths[P]] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
type Loose = Record<string, unknown>;

/**
 * The Partner API client. Every operation of the document is a typed call (`api.get('/api/courses/{id}', …)`), the
 * common ones also have methods (`api.enrollments.create(…)`); failures throw `PartnerApiError`, and safe retries
 * happen by themselves.
 */
export class PartnerApi {
  /**
   * The openapi-fetch client underneath, with the same retries: answers `{ data, error, response }` instead of
   * throwing, and gives the whole envelope.
   */
  readonly client: Client<paths>;
  readonly webhooks = webhooks;
  private readonly transport: RetryingTransport;
  private readonly contexts = new WeakMap<Request, RequestContext>();

  constructor(options: PartnerApiOptions) {
    if (!options?.apiKey) throw new TypeError('PartnerApi needs an apiKey');
    if (!options.baseUrl) throw new TypeError('PartnerApi needs a baseUrl (the service origin)');
    this.transport = new RetryingTransport(
      {
        timeoutMs: options.timeoutMs ?? 30_000,
        maxRetries: options.maxRetries ?? 2,
        maxRetryTimeMs: options.maxRetryTimeMs ?? 60_000,
      },
      options.fetch ?? ((input, init) => fetch(input, init)),
    );
    this.client = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, '').replace(/\/api$/, ''),
      headers: { 'User-Agent': `partner-api-sdk-node/${SDK_VERSION}`, ...options.headers, 'X-API-Key': options.apiKey },
      fetch: (request: Request) => this.transport.send(request, this.contexts.get(request)),
    });
    // The route template decides whether a POST may be retried after it was sent; the Request alone does not say.
    this.client.use({
      onRequest: ({ request, schemaPath }) => {
        this.contexts.set(request, { schemaPath });
      },
    });
  }

  get<P extends PathsWith<'get'>>(path: P, ...init: InitArgs<P, 'get'>): Promise<ApiResponse<ResponseData<P, 'get'>>> {
    return this.call('get', path, init[0]);
  }

  post<P extends PathsWith<'post'>>(path: P, ...init: InitArgs<P, 'post'>): Promise<ApiResponse<ResponseData<P, 'post'>>> {
    return this.call('post', path, init[0]);
  }

  put<P extends PathsWith<'put'>>(path: P, ...init: InitArgs<P, 'put'>): Promise<ApiResponse<ResponseData<P, 'put'>>> {
    return this.call('put', path, init[0]);
  }

  patch<P extends PathsWith<'patch'>>(path: P, ...init: InitArgs<P, 'patch'>): Promise<ApiResponse<ResponseData<P, 'patch'>>> {
    return this.call('patch', path, init[0]);
  }

  delete<P extends PathsWith<'delete'>>(path: P, ...init: InitArgs<P, 'delete'>): Promise<ApiResponse<ResponseData<P, 'delete'>>> {
    return this.call('delete', path, init[0]);
  }

  /**
   * Every item of a paginated list, page after page (100 a page unless `limit` says otherwise), starting at `page`
   * (default 1). Pages are read as the loop asks for them; items added or removed meanwhile may shift between pages.
   */
  async *paginate<P extends PaginatedPath>(path: P, ...init: InitArgs<P, 'get'>): AsyncGenerator<PageItem<P>, void, undefined> {
    const options = (init[0] ?? {}) as Loose & { params?: Loose & { query?: Loose } };
    const query = options.params?.query ?? {};
    const limit = typeof query.limit === 'number' ? query.limit : 100;
    for (let page = typeof query.page === 'number' ? query.page : 1; ; page++) {
      const { data } = await this.call<Loose>('get', path, { ...options, params: { ...options.params, query: { ...query, page, limit } } });
      const items = (Object.values(data).find(Array.isArray) ?? []) as PageItem<P>[];
      yield* items;
      const last = typeof data.pages === 'number' ? page >= data.pages : items.length < limit;
      if (items.length === 0 || last) return;
    }
  }

  readonly courses = {
    list: (query?: Query<'/api/courses', 'get'>) => this.get('/api/courses', { params: { query } }),
    get: (id: number) => this.get('/api/courses/{id}', { params: { path: { id } } }),
  };

  readonly users = {
    create: (body: Body<'/api/users', 'post'>, options?: CallOptions) => this.post('/api/users', { body, ...options }),
    get: (id: number) => this.get('/api/users/{id}', { params: { path: { id } } }),
    getByExternalId: (externalUserId: string) => this.get('/api/users/external/{external_user_id}', { params: { path: { external_user_id: externalUserId } } }),
    /** Creates the learner (201) or updates them (200): safe to call on every sign-in. */
    upsertByExternalId: (externalUserId: string, body: Body<'/api/users/external/{external_user_id}', 'put'>) =>
      this.put('/api/users/external/{external_user_id}', { params: { path: { external_user_id: externalUserId } }, body }),
  };

  readonly enrollments = {
    create: (body: Body<'/api/enroll', 'post'>, options?: CallOptions) => this.post('/api/enroll', { body, ...options }),
    get: (id: number) => this.get('/api/enrollments/{id}', { params: { path: { id } } }),
    listForUser: (userId: number, query?: Query<'/api/users/{id}/enrollments', 'get'>) =>
      this.get('/api/users/{id}/enrollments', { params: { path: { id: userId }, query } }),
    recordProgress: (id: number, body: Body<'/api/enrollments/{id}/progress', 'post'>, options?: CallOptions) =>
      this.post('/api/enrollments/{id}/progress', { params: { path: { id } }, body, ...options }),
    createBulk: (body: Body<'/api/enroll/bulk', 'post'>, options?: CallOptions) => this.post('/api/enroll/bulk', { body, ...options }),
  };

  readonly credits = {
    topUp: (body: Body<'/api/credits/topup', 'post'>, options?: CallOptions) => this.post('/api/credits/topup', { body, ...options }),
    balance: (userId: number) => this.get('/api/credits/balance/{user_id}', { params: { path: { user_id: userId } } }),
    transactions: (userId: number, query?: Query<'/api/credits/transactions/{user_id}', 'get'>) =>
      this.get('/api/credits/transactions/{user_id}', { params: { path: { user_id: userId }, query } }),
  };

  readonly certificates = {
    issue: (body: Body<'/api/certificates/issue', 'post'>, options?: CallOptions) => this.post('/api/certificates/issue', { body, ...options }),
  };

  readonly jobs = {
    get: (id: string) => this.get('/api/jobs/{id}', { params: { path: { id } } }),
  };

  private async call<T>(method: HttpMethod, path: string, init: unknown): Promise<ApiResponse<T>> {
    const { idempotencyKey, ...rest } = (init ?? {}) as CallOptions & Loose;
    if (idempotencyKey !== undefined) {
      const headers = new Headers(rest.headers as ConstructorParameters<typeof Headers>[0]);
      headers.set('Idempotency-Key', idempotencyKey);
      rest.headers = headers;
    }
    const request = this.client.request as unknown as (m: string, p: string, i: Loose) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
    const { data, error, response } = await request(method, path, rest);
    const attempts = this.transport.attempts.get(response) ?? 1;
    if (!response.ok) throw PartnerApiError.fromResponse(response, error, attempts);
    const envelope = data as { status?: unknown; data?: unknown } | undefined;
    return {
      data: (envelope?.status === 'success' && 'data' in envelope ? envelope.data : data) as T,
      status: response.status,
      requestId: response.headers.get('x-request-id'),
      idempotentReplayed: response.headers.get('idempotent-replayed') === 'true',
      headers: response.headers,
      attempts,
    };
  }
}
