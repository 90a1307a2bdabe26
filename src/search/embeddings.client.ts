export class EmbeddingsError extends Error {}

/** The widest vector accepted (OpenAI's small model has 1,536; larger models can be asked for fewer dimensions). */
export const MAX_EMBEDDING_DIMENSIONS = 2048;
// A float written as JSON takes at most ~24 bytes ("-0.012345678901234567,"); plus room for the envelope.
const BYTES_PER_NUMBER = 24;
const ENVELOPE_BYTES = 64 * 1024;

/** The most bytes an honest answer for `inputs` vectors can take: anything longer is refused unread. */
export function maxAnswerBytes(inputs: number): number {
  return ENVELOPE_BYTES + inputs * (MAX_EMBEDDING_DIMENSIONS * BYTES_PER_NUMBER + 256);
}

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
    const abort = new AbortController();
    try {
      res = await fetch(this.endpoint, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          ...(this.options.apiKey ? { Authorization: `Bearer ${this.options.apiKey}` } : {}),
        },
        body: JSON.stringify({ model: this.model, input: inputs }),
        signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), abort.signal]),
      });
    } catch (e) {
      throw new EmbeddingsError(
        `embeddings request failed: ${(e as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (e as Error).message}`,
      );
    }
    if (!res.ok) {
      abort.abort();
      throw new EmbeddingsError(`embeddings endpoint answered ${res.status}`);
    }
    const text = await readBounded(res, maxAnswerBytes(inputs.length), abort, timeoutMs);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new EmbeddingsError(`embeddings answer ${res.status} is not JSON`);
    }
    return parseEmbeddings(body, inputs.length);
  }
}

/** The body as text, refused (and the connection dropped) as soon as it passes `limit` bytes. */
async function readBounded(res: Response, limit: number, abort: AbortController, timeoutMs: number): Promise<string> {
  const declared = Number(res.headers.get('content-length'));
  if (declared > limit) {
    abort.abort();
    throw new EmbeddingsError(`embeddings answer too large (${declared} bytes, at most ${limit})`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    const body: AsyncIterable<Uint8Array> | Iterable<Uint8Array> = res.body ?? [];
    for await (const chunk of body) {
      size += chunk.byteLength;
      if (size > limit) {
        abort.abort();
        throw new EmbeddingsError(`embeddings answer too large (over ${limit} bytes)`);
      }
      chunks.push(chunk);
    }
  } catch (e) {
    if (e instanceof EmbeddingsError) throw e;
    throw new EmbeddingsError(
      `embeddings answer could not be read: ${(e as Error).name === 'TimeoutError' ? `not complete within ${timeoutMs} ms` : (e as Error).message}`,
    );
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseEmbeddings(body: unknown, expected: number): number[][] {
  const data = (body as { data?: unknown })?.data;
  if (!Array.isArray(data) || data.length !== expected) throw new EmbeddingsError('embeddings answer has no data array of the right length');
  const out = new Array<number[]>(expected);
  let dims = -1;
  for (const [i, item] of data.entries()) {
    const { embedding, index } = (item ?? {}) as { embedding?: unknown; index?: unknown };
    const at = typeof index === 'number' ? index : i;
    if (!Array.isArray(embedding) || !embedding.length || !embedding.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw new EmbeddingsError('embeddings answer holds a malformed vector');
    }
    if (embedding.length > MAX_EMBEDDING_DIMENSIONS) {
      throw new EmbeddingsError(`embeddings answer holds vectors of ${embedding.length} dimensions (at most ${MAX_EMBEDDING_DIMENSIONS})`);
    }
    if (dims !== -1 && embedding.length !== dims) throw new EmbeddingsError('embeddings answer mixes vector sizes');
    if (at < 0 || at >= expected || out[at]) throw new EmbeddingsError('embeddings answer has a bad index');
    dims = embedding.length;
    out[at] = embedding as number[];
  }
  return out;
}
