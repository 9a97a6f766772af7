/**
 * Sentence vectors for recall: one interface over the packaged model (run in a worker thread) and
 * any OpenAI-compatible `/v1/embeddings` server. Vectors are unit length, so cosine is a dot product.
 */
export interface Embedder {
  /**
   * Names the model and its settings: vectors from two embedders with different ids are never
   * compared, and the vector cache is keyed by it (a model change re-embeds).
   */
  readonly id: string;
  /**
   * One vector per text, in order. `priority: 'query'` goes ahead of queued document batches (a
   * reply waits for its query's vector, never for indexing). Rejects when the model is unavailable.
   */
  embed(texts: string[], opts?: EmbedOptions): Promise<Float32Array[]>;
  /** Stops the worker or drops the client; later calls reject. */
  close(): Promise<void>;
}

/**
 * Told once per outage that meaning is unavailable and recall goes by words, with why in one line.
 * Without one, the embedder logs a warning (without the stack: an outage is not a bug).
 */
export type OnMeaningUnavailable = (why: string) => void;

/** An error's message on one short line, fit to follow "meaning is unavailable:". */
export function oneLineReason(err: unknown): string {
  const message = (err as { message?: unknown } | null)?.message;
  const raw = typeof message === 'string' ? message : String(err);
  const flat = raw
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}

export interface EmbedOptions {
  priority?: 'query' | 'document';
  signal?: AbortSignal;
  /**
   * A query that would likely wait longer than this (the work queued ahead of it, at the measured
   * speed) is refused at once instead of queued: the caller goes on without it.
   */
  maxWaitMs?: number;
}

/** In place: scales `v` to unit length (a zero vector stays zero). */
export function normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  if (s > 0) {
    const k = 1 / Math.sqrt(s);
    for (let i = 0; i < v.length; i++) v[i] *= k;
  }
  return v;
}

export function dot(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length);
  let s = 0;
  for (let i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}
