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
    const res = await fetch(this.baseUrl + path, { method, headers, body, redirect: 'manual' });
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
