import type { Logger } from '../log/logger';
import type { Embedder } from '../embed/types';
import { dot } from '../embed/types';
import { textHash, VectorCache } from '../embed/vectorCache';
import type { Index } from './recall';
import type { Candidate } from './recallSources';
import { hasCjk } from './tokenize';

/**
 * Vectors for recall candidates: looked up in the content-addressed cache, and embedded in the
 * background when missing. A query never waits for a candidate's vector: `cosines` answers with what
 * is there now (NaN for the rest) and queues the rest.
 *
 * Text in scripts the packaged model was not trained on (Chinese, Japanese, Korean) is never
 * embedded: its vectors would be noise, so those entries are scored by words alone.
 */
export interface CandidateVectorsOptions {
  embedder: Embedder;
  cache: VectorCache;
  logger: Logger;
  /** Texts per background request. */
  batchSize?: number;
}

/** Per index: the hash of each candidate's text ('' = never embedded) and its vector once known. */
interface IndexVectors {
  hashes: string[];
  vecs: (Float32Array | undefined)[];
  missing: number;
  /** cache.size when `vecs` was last filled in. */
  seen: number;
}

/** One background request: big enough to amortise the worker round trip, small enough to keep queries quick. */
const DEFAULT_BATCH = 64;

export class CandidateVectors {
  private readonly perIndex = new WeakMap<Index, IndexVectors>();
  /** hash → text, waiting to be embedded. */
  private readonly pending = new Map<string, string>();
  private running: Promise<void> | undefined;
  /** After a failed batch (a 429, a server down), indexing waits until then; queries still work. */
  private pausedUntil = 0;

  constructor(private readonly o: CandidateVectorsOptions) {}

  /** Milliseconds indexing waits after a failed batch before trying again. */
  static readonly RETRY_MS = 60_000;

  get modelId(): string {
    return this.o.embedder.id;
  }

  /** Cosine of each candidate with `query`, NaN where no vector is known yet; queues those. */
  cosines(index: Index, query: Float32Array): Float32Array {
    const iv = this.vectorsOf(index);
    const out = new Float32Array(index.n);
    for (let i = 0; i < index.n; i++) {
      const v = iv.vecs[i];
      out[i] = v ? dot(v, query) : NaN;
    }
    return out;
  }

  /** Queues every candidate of `index` that has no vector, in the background; how many are waiting. */
  queue(index: Index): number {
    this.vectorsOf(index);
    return this.pending.size;
  }

  /** Reads the cache file now (at start), not on the first message. */
  loadCache(): void {
    void this.o.cache.size;
  }

  /** Queues every candidate of `index` that has no vector; resolves when the queue has drained. */
  indexAll(index: Index): Promise<void> {
    this.vectorsOf(index);
    return this.running ?? Promise.resolve();
  }

  /** Drops what is queued (a shutdown must not wait for a whole indexing run), lands the rest. */
  async stop(): Promise<void> {
    this.pending.clear();
    this.pausedUntil = Infinity;
    await this.running;
    await this.o.cache.flush();
  }

  /** Resolves when nothing is queued or being embedded. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
    await this.o.cache.flush();
  }

  private vectorsOf(index: Index): IndexVectors {
    let iv = this.perIndex.get(index);
    if (!iv) {
      const hashes = index.cands.map((c) => (embeddable(c) ? textHash(embedText(c)) : ''));
      iv = { hashes, vecs: new Array(index.n), missing: index.n, seen: -1 };
      this.perIndex.set(index, iv);
    }
    const size = this.o.cache.size;
    if (iv.missing > 0 && iv.seen !== size) {
      iv.seen = size;
      let missing = 0;
      for (let i = 0; i < index.n; i++) {
        if (iv.vecs[i] || !iv.hashes[i]) continue;
        const v = this.o.cache.get(iv.hashes[i]);
        if (v) iv.vecs[i] = v;
        else {
          missing++;
          if (!this.pending.has(iv.hashes[i])) this.pending.set(iv.hashes[i], embedText(index.cands[i]));
        }
      }
      iv.missing = missing;
    }
    this.kick();
    return iv;
  }

  private kick(): void {
    if (this.running || this.pending.size === 0 || Date.now() < this.pausedUntil) return;
    this.running = this.drain().finally(() => {
      this.running = undefined;
    });
  }

  private async drain(): Promise<void> {
    const batch = this.o.batchSize ?? DEFAULT_BATCH;
    while (this.pending.size > 0) {
      const hashes = Array.from(this.pending.keys()).slice(0, batch);
      const texts = hashes.map((h) => this.pending.get(h)!);
      try {
        const vectors = await this.o.embedder.embed(texts, { priority: 'document' });
        this.o.cache.putMany(hashes.map((hash, i) => ({ hash, vector: vectors[i] })));
        for (const h of hashes) this.pending.delete(h);
      } catch (err) {
        // The embedder logs its own unavailability once; what is queued stays queued, and the entries
        // are scored by words until a later attempt succeeds.
        this.pausedUntil = Date.now() + CandidateVectors.RETRY_MS;
        this.o.logger.debug({ err }, 'background embedding paused');
        return;
      }
    }
  }
}

function embeddable(c: Candidate): boolean {
  return c.body.trim().length > 0 && !hasCjk(c.body);
}

/** What the model reads for a candidate: the entry without bullet, id or provenance tag. */
export function embedText(c: Candidate): string {
  const body = c.body.replace(/\s+/g, ' ').trim();
  return body.length > MAX_EMBED_CHARS ? body.slice(0, MAX_EMBED_CHARS) : body;
}

/** USE-lite reads whole sentences; beyond a paragraph it only averages more words. */
const MAX_EMBED_CHARS = 2_000;
