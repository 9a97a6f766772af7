import { createHash } from 'node:crypto';
import OpenAI from 'openai';
import type { Logger } from '../log/logger';
import { connectionProblem, displayUrl } from '../shared/netErrors';
import { EmbedOptions, Embedder, normalize, oneLineReason, type OnMeaningUnavailable } from './types';

/**
 * Vectors from any OpenAI-compatible `/v1/embeddings` server: OpenAI, Ollama, LM Studio, vLLM,
 * llama.cpp's server. Network I/O only, so it runs on the main thread; batches are bounded so one
 * request never carries a whole channel.
 */
export interface ApiEmbedderOptions {
  logger: Logger;
  /** Includes /v1. */
  baseURL: string;
  model: string;
  apiKey?: string;
  timeoutMs?: number;
  batchSize?: number;
  onUnavailable?: OnMeaningUnavailable;
}

/** Most servers accept up to 2,048 inputs; small batches keep each request short and retryable. */
const DEFAULT_BATCH = 64;
/** An embedding call is short; a server that takes longer is treated as down (recall goes lexical). */
const DEFAULT_TIMEOUT_MS = 15_000;
const PLACEHOLDER_KEY = 'not-needed';

export class ApiEmbedder implements Embedder {
  readonly id: string;
  private readonly sdk: OpenAI;
  private closed = false;
  /** An outage is logged once, when it starts; a success ends it. */
  private down = false;

  constructor(private readonly o: ApiEmbedderOptions) {
    // The key is not part of the id: rotating a key must not re-embed. The URL is, hashed (it may
    // carry credentials and the id is written next to the cache).
    const where = createHash('sha256').update(o.baseURL).digest('hex').slice(0, 12);
    this.id = `api:${o.model}@${where}`;
    this.sdk = new OpenAI({ apiKey: o.apiKey || PLACEHOLDER_KEY, baseURL: o.baseURL, maxRetries: 1, timeout: o.timeoutMs ?? DEFAULT_TIMEOUT_MS });
  }

  async embed(texts: string[], opts: EmbedOptions = {}): Promise<Float32Array[]> {
    if (this.closed) throw new Error('the embeddings client is closed');
    try {
      const out = await this.request(texts, opts);
      this.down = false;
      return out;
    } catch (err) {
      if (!this.down && !opts.signal?.aborted) {
        this.down = true;
        const why = describeFailure(err, this.o.baseURL);
        if (this.o.onUnavailable) this.o.onUnavailable(why);
        else
          this.o.logger.warn(
            { reason: why, model: this.o.model },
            'embeddings server failed; recall scores by words until it answers again (check recall.api in the config)',
          );
      }
      throw err;
    }
  }

  private async request(texts: string[], opts: EmbedOptions): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    const batch = this.o.batchSize ?? DEFAULT_BATCH;
    for (let i = 0; i < texts.length; i += batch) {
      const input = texts.slice(i, i + batch);
      const res = await this.sdk.embeddings.create({ model: this.o.model, input, encoding_format: 'float' }, { signal: opts.signal });
      const data = Array.isArray(res?.data) ? res.data : undefined;
      if (!data || data.length !== input.length) {
        throw new Error(`the embeddings server at ${displayUrl(this.o.baseURL)} answered ${data ? data.length : 'no'} vectors for ${input.length} texts`);
      }
      const sorted = data.slice().sort((a, b) => a.index - b.index);
      for (const d of sorted) {
        if (!Array.isArray(d.embedding) || d.embedding.length === 0)
          throw new Error(`the embeddings server at ${displayUrl(this.o.baseURL)} answered an empty vector`);
        out.push(normalize(Float32Array.from(d.embedding)));
      }
    }
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/** What went wrong with the server, in one line: its status and words, no connection, or not JSON. */
function describeFailure(err: unknown, baseURL: string): string {
  const at = `the embeddings server at ${displayUrl(baseURL)}`;
  if (err instanceof OpenAI.APIConnectionTimeoutError) return `${at} did not answer in time`;
  if (err instanceof OpenAI.APIConnectionError) return `could not connect to ${at}: ${connectionProblem(err, baseURL) ?? 'connection error'}`;
  if (err instanceof OpenAI.APIError) {
    const said = (err.error as { message?: unknown } | undefined)?.message;
    return `${at} answered ${err.status ?? 'an error'}${typeof said === 'string' && said.trim() ? ` (${oneLineReason(said)})` : ''}`;
  }
  // By name: fetch's JSON parser throws from Node's own realm, where instanceof may not hold.
  if ((err as { name?: unknown } | null)?.name === 'SyntaxError') return `${at} answered something that is not JSON`;
  return oneLineReason(err);
}
