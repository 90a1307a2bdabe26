export class EmbeddingsError extends Error {}

export interface EmbeddingsOptions {
  url: string;
  model: string;
  apiKey?: string;
}

/** The endpoint from SEARCH_EMBEDDINGS_URL: a base URL ("https://host", "https://host/v1") or the full /embeddings URL. */
export function embeddingsEndpoint(url: string): string {
  const u = url.replace(/\/+$/, '');
  if (/\/embeddings$/.test(u)) return u;
  return /\/v\d+$/.test(u) ? `${u}/embeddings` : `${u}/v1/embeddings`;
}

/** A client of an OpenAI-compatible `/v1/embeddings` endpoint; every answer is checked before use. */
export class EmbeddingsClient {
  readonly model: string;
  private readonly endpoint: string;

  constructor(private readonly options: EmbeddingsOptions) {
    this.model = options.model;
    this.endpoint = embeddingsEndpoint(options.url);
  }

  /** One vector per input, in input order. Throws EmbeddingsError on time-out, non-2xx or a malformed answer. */
  async embed(inputs: string[], timeoutMs: number): Promise<number[][]> {
    let res: Response;
    try {
      res = await fetch(this.endpoint, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          ...(this.options.apiKey ? { Authorization: `Bearer ${this.options.apiKey}` } : {}),
        },
        body: JSON.stringify({ model: this.model, input: inputs }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (e) {
      throw new EmbeddingsError(`embeddings request failed: ${(e as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (e as Error).message}`);
    }
    let body: unknown;
    try {
      body = await res.json();
    } catch {
      throw new EmbeddingsError(`embeddings answer ${res.status} is not JSON`);
    }
    if (!res.ok) throw new EmbeddingsError(`embeddings endpoint answered ${res.status}`);
    return parseEmbeddings(body, inputs.length);
  }
}

function parseEmbeddings(body: unknown, expected: number): number[][] {
  const data = (body as { data?: unknown })?.data;
  if (!Array.isArray(data) || data.length !== expected) throw new EmbeddingsError('embeddings answer has no data array of the right length');
  const out: number[][] = new Array(expected);
  let dims = -1;
  for (const [i, item] of data.entries()) {
    const { embedding, index } = (item ?? {}) as { embedding?: unknown; index?: unknown };
    const at = typeof index === 'number' ? index : i;
    if (!Array.isArray(embedding) || !embedding.length || !embedding.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw new EmbeddingsError('embeddings answer holds a malformed vector');
    }
    if (dims !== -1 && embedding.length !== dims) throw new EmbeddingsError('embeddings answer mixes vector sizes');
    if (at < 0 || at >= expected || out[at]) throw new EmbeddingsError('embeddings answer has a bad index');
    dims = embedding.length;
    out[at] = embedding as number[];
  }
  return out;
}
