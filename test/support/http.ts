import { Agent } from 'undici';

// Idle sockets are dropped after 1 s, well before the server's 5 s keep-alive timeout. With fetch's default (4 s: the
// server's hint less 1 s) a loaded machine raced: a request went out on a socket the server was closing, ECONNRESET.
const dispatcher = new Agent({ keepAliveTimeout: 1000, keepAliveMaxTimeout: 1000 });

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Sent as JSON unless `raw` is given. */
  body?: unknown;
  raw?: string | Buffer;
  key?: string;
}

/** Sees every response; throwing fails the request (startApp uses it to check responses against the OpenAPI document). */
export type ResponseHook = (res: { method: string; path: string; status: number; contentType: string | null; body: unknown }) => void | Promise<void>;

/** A thin fetch wrapper over real HTTP, so integration tests exercise the whole stack. */
export class HttpClient {
  constructor(
    readonly baseUrl: string,
    private readonly defaultKey?: string,
    private readonly onResponse?: ResponseHook,
  ) {}

  withKey(key: string): HttpClient {
    return new HttpClient(this.baseUrl, key, this.onResponse);
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<HttpResult<T>> {
    const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
    const key = options.key ?? this.defaultKey;
    if (key && !('X-API-Key' in headers)) headers['X-API-Key'] = key;
    let body: string | Buffer | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['Content-Type'] ??= 'application/json';
    }
    // undici's Agent and @types/node's copy of undici's types describe the same dispatcher differently.
    const init = { method, headers, body, redirect: 'manual', dispatcher } as unknown as RequestInit;
    const res = await fetch(this.baseUrl + path, init).catch((e: unknown) => {
      // A kept-alive socket the server closed while this process was busy (the app runs in the test's own process, so a
      // long synchronous step in a test stalls both timers): a GET is safe to send again on a fresh socket, as
      // HTTP/1.1 clients do.
      if (method !== 'GET' || (e as { cause?: { code?: string } }).cause?.code !== 'ECONNRESET') throw e;
      return fetch(this.baseUrl + path, init);
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON (a page or a file): keep the text
    }
    await this.onResponse?.({ method, path, status: res.status, contentType: res.headers.get('content-type'), body: parsed });
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }

  post<T = any>(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.request<T>('POST', path, { ...options, body });
  }

  put<T = any>(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.request<T>('PUT', path, { ...options, body });
  }

  patch<T = any>(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.request<T>('PATCH', path, { ...options, body });
  }

  delete<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('DELETE', path, options);
  }
}
